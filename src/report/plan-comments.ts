// A fleet's plan as pull-request comments (`plan --comment-dir DIR`): the sections of
// fleet-plan-markdown, in order, packed into as few comments as fit, each at most `limit` long as
// GitHub counts (UTF-16 code units: a JavaScript string's length). The size holds by construction:
// a table or a list is cut between lines and goes on in the next comment under its own heading; a
// store's details go whole into a comment, the next one when they do not fit in this one, cut
// (with a note naming the saved plan) when they do not fit in any. Every comment opens with a
// hidden marker, `<!-- erpsync-plan-comment part=I of=N -->`, by which a pipeline finds and updates
// the comments it posted before instead of adding new ones. Pure.
import type { FleetPlanSection, LinesSection } from './fleet-plan-markdown.js';

export interface PlanComment {
  /** 1-based. */
  part: number;
  text: string;
  /** The stores whose details this comment holds. */
  stores: string[];
}

function commentMarker(part: number, of: number): string {
  return `<!-- erpsync-plan-comment part=${part} of=${of} -->`;
}

function opening(part: number, of: number): string {
  return part === 1 ? `${commentMarker(part, of)}\n` : `${commentMarker(part, of)}\n_erpsync plan, part ${part} of ${of}, continued_\n`;
}

/** The longest opening any comment can have, whatever the number of parts. */
const openingRoom = opening(999_999, 999_999).length;

/** `text` shortened to `max` code units, never between the two halves of a surrogate pair, ending its line. */
function clipTo(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 2;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end)}…\n`;
}

class Packer {
  readonly parts: { text: string; stores: string[] }[] = [{ text: '', stores: [] }];
  constructor(readonly budget: number) {}

  private get current(): { text: string; stores: string[] } {
    return this.parts[this.parts.length - 1] as { text: string; stores: string[] };
  }

  room(): number {
    return this.budget - this.current.text.length;
  }

  /** Puts `text` in this comment, or in a new one when it does not fit and this one holds something. */
  put(text: string, continued = ''): void {
    if (text.length > this.room() && this.current.text !== '') {
      this.parts.push({ text: '', stores: [] });
      this.current.text = clipTo(continued, this.budget);
    }
    this.current.text += clipTo(text, this.room());
  }

  noteStore(target: string): void {
    this.current.stores.push(target);
  }
}

const asText = (lines: readonly string[]) => lines.map((line) => `${line}\n`).join('');

function putLines(packer: Packer, section: LinesSection): void {
  const [first, ...rest] = section.lines;
  // The head stays with the first line: no heading ends a comment alone.
  packer.put(asText([...section.head, ...(first === undefined ? [] : [first])]));
  const continued = asText(section.continued);
  for (const line of rest) packer.put(`${line}\n`, continued);
}

/** The comments, in order; `limit` is the most a comment may hold, opening marker included. */
export function splitIntoComments(sections: readonly FleetPlanSection[], limit: number): PlanComment[] {
  const packer = new Packer(limit - openingRoom);
  for (const section of sections) {
    if (section.type === 'lines') {
      putLines(packer, section);
      continue;
    }
    // Rendered for an empty comment: it fits in the next one when not in this one.
    packer.put(section.render(packer.budget));
    packer.noteStore(section.target);
  }
  const of = packer.parts.length;
  return packer.parts.map((part, index) => ({ part: index + 1, text: `${opening(index + 1, of)}${part.text}`, stores: part.stores }));
}
