// Text from outside erpsync — manifest keys and values, names typed into the ERP, file names —
// on its way to a terminal, a log or a report. Control characters, line breaks, bidi controls,
// zero-width characters, noncharacters and lone surrogates are written as escapes (`\n`, `\u001b`,
// `\u200b`, `\ud800`), so the input can neither
// drive the terminal (clear the screen, hide a line of a plan), nor break one line into two, nor
// reorder what is shown, nor make two different names look the same.

function isUnprintable(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x2060 && code <= 0x2064) ||
    code === 0xfeff ||
    // Noncharacters and lone surrogates (a valid pair reaches here as one code point above U+FFFF).
    code === 0xfffe ||
    code === 0xffff ||
    (code >= 0xd800 && code <= 0xdfff) ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

/** `text` with every unprintable character escaped; `keepLineBreaks` lets `\n` through (multi-line cells). */
export function printable(text: string, options: { keepLineBreaks?: boolean } = {}): string {
  let out = '';
  for (const c of text) {
    const code = c.codePointAt(0) ?? 0;
    if (!isUnprintable(code) || (c === '\n' && options.keepLineBreaks)) out += c;
    else if (c === '\n') out += '\\n';
    else if (c === '\t') out += '\\t';
    else out += `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return out;
}
