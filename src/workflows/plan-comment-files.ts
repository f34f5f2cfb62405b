// The comments of a fleet plan on disk (`plan --comment-dir DIR`): DIR/comment-1.md … comment-N.md
// and DIR/index.json naming each part, its size (as GitHub counts it, and in bytes) and the stores
// whose details it holds. A pipeline posts them in order, or updates the ones it posted before
// (found by their marker); comment files of an earlier, longer run in DIR are removed, so the
// folder holds exactly this plan's comments.
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { PlanComment } from '../report/plan-comments.js';
import { makeDirectory, writeFileAtomically } from '../model/write-file-atomically.js';

const commentIndexFile = 'index.json';
const commentFile = /^comment-(\d+)\.md$/;

export interface CommentIndexPart {
  part: number;
  file: string;
  /** UTF-16 code units: what GitHub's limit counts. */
  chars: number;
  bytes: number;
  stores: string[];
}

/** Writes the comments and their index (last); `within` is the working folder no linked folder may lead out of. */
export async function writePlanComments(dir: string, comments: readonly PlanComment[], limit: number, within: string): Promise<CommentIndexPart[]> {
  await makeDirectory(dir, { within });
  const parts: CommentIndexPart[] = [];
  for (const comment of comments) {
    const file = `comment-${comment.part}.md`;
    await writeFileAtomically(path.join(dir, file), comment.text, { within });
    parts.push({ part: comment.part, file, chars: comment.text.length, bytes: Buffer.byteLength(comment.text), stores: comment.stores });
  }
  for (const name of await readdir(dir)) {
    const part = Number(commentFile.exec(name)?.[1] ?? 0);
    if (part > comments.length) await rm(path.join(dir, name), { force: true });
  }
  await writeFileAtomically(path.join(dir, commentIndexFile), `${JSON.stringify({ formatVersion: 1, kind: 'erpsync-plan-comments', limit, parts }, null, 2)}\n`, { within });
  return parts;
}
