// The pull request loop, its comment: the parts erpsync wrote (OUT/comments/comment-N.md, each
// opening with the hidden marker `<!-- erpsync-plan-comment part=N -->`) replace the request's
// comments with the same marker, in place — part N keeps its comment id on every push; parts a
// longer plan had before are deleted, never left behind or piled up. When erpsync wrote no parts
// (nothing affected, the plan failed), part 1 says so, if the request already has one. A fork's
// request gets no comment: its token cannot write (the run's summary says why it was not planned).
// Usage: node post-plan-comments.mjs OUT
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { outputFolder, readJson, readState, report, runScript, runUrl } from './ci-lib.mjs';
import { currentForge } from './forge.mjs';

const marker = /^<!-- erpsync-plan-comment part=(\d+)\b[^>]*-->/;
/** A forge keeps 65,536 characters a comment; erpsync's parts stay under 65,000, the footer fits. */
const commentLimit = 65_536;

function partsWritten(comments) {
  if (!existsSync(comments)) return [];
  return readdirSync(comments)
    .map((file) => ({ file, part: Number(/^comment-(\d+)\.md$/.exec(file)?.[1]) }))
    .filter((p) => p.part > 0)
    .sort((a, b) => a.part - b.part)
    .map((p) => readFileSync(path.join(comments, p.file), 'utf8'));
}

/** Part 1 when erpsync planned nothing: why, so that an earlier plan on the request is not taken as current. */
function statusPart(request) {
  const why =
    request.targets.length === 0
      ? 'No store reads a file this change touches: nothing to plan, nothing is applied on merge.'
      : `erpsync plan failed (exit ${request.exitcode}): nothing will be applied on merge until a push plans again. The messages are in the [log of the run](${runUrl()}).`;
  return `<!-- erpsync-plan-comment part=1 -->\n### erpsync plan\n\n${why}\n`;
}

function footer(request) {
  return `\n\n_Plans of commit ${request.head.slice(0, 7)} ([run](${runUrl()})): merging applies exactly these._\n`;
}

await runScript(() => {
  const out = outputFolder('node post-plan-comments.mjs OUT');
  const request = readJson(path.join(out, 'request.json'));
  if (request.fork) return 0;
  const forge = currentForge(readState());
  const written = partsWritten(path.join(out, 'comments'));
  const existing = new Map();
  const duplicates = [];
  for (const comment of forge.comments(request.number)) {
    const part = Number(marker.exec(comment.body)?.[1] ?? 0);
    if (part === 0) continue;
    if (existing.has(part)) duplicates.push(comment.id);
    else existing.set(part, comment);
  }
  const parts = written.length > 0 ? written.map((text, i) => (i === written.length - 1 && text.length + footer(request).length <= commentLimit ? text + footer(request) : text)) : existing.size > 0 ? [statusPart(request)] : [];
  const file = path.join(out, 'comment-body.md');
  parts.forEach((body, i) => {
    const comment = existing.get(i + 1);
    if (comment?.body === body) return;
    writeFileSync(file, body);
    if (comment) forge.updateComment(request.number, comment.id, file);
    else forge.createComment(request.number, file);
  });
  const stale = [...existing].filter(([part]) => part > parts.length).map(([, comment]) => comment.id);
  for (const id of [...stale, ...duplicates]) forge.deleteComment(request.number, id);
  report('notice', `plan comment: ${parts.length} part(s) on #${request.number}${stale.length + duplicates.length > 0 ? `, ${stale.length + duplicates.length} older part(s) deleted` : ''}`);
  return 0;
});
