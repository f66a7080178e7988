/** What a reader copies from a Markdown document: sections by heading, and their code blocks. */

/** The heading level of each line (0 for text and for every line of a code block, where `# ` starts a comment). */
function headingLevels(lines: string[]): number[] {
  let inCode = false;
  return lines.map((line) => {
    if (line.startsWith('```')) inCode = !inCode;
    return !inCode && /^#+ /.test(line) ? /^#+/.exec(line)![0].length : 0;
  });
}

/** The text of the section under `heading` (e.g. `## A tour`), up to the next heading of the same or a higher level. */
export function section(markdown: string, heading: string): string {
  const lines = markdown.split('\n');
  const levels = headingLevels(lines);
  const start = lines.findIndex((line, i) => line === heading && levels[i]! > 0);
  if (start === -1) throw new Error(`no heading "${heading}"`);
  const end = levels.findIndex((level, i) => i > start && level > 0 && level <= levels[start]!);
  return lines.slice(start, end === -1 ? undefined : end).join('\n');
}

/** The headings one level below the section's own, in order. */
export function subheadings(sectionText: string): string[] {
  const lines = sectionText.split('\n');
  const levels = headingLevels(lines);
  return lines.filter((_, i) => levels[i] === levels[0]! + 1);
}

export interface CodeBlock {
  lang: string;
  code: string;
}

/** The fenced code blocks, in order. */
export function codeBlocks(text: string): CodeBlock[] {
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, code: m[2]!.replace(/\n$/, '') }));
}

/** One command (or several) of a shell block, with the answer its `# -> ` comment shows, if any. */
export interface Snippet {
  commands: string;
  expected?: string;
}

/**
 * Cuts a shell block at its `# -> ` comments: each snippet is the commands since the previous one,
 * with the answer shown (continuation comment lines joined).
 */
export function snippets(code: string): Snippet[] {
  const result: Snippet[] = [];
  let commands: string[] = [];
  let expected: string[] | undefined;
  const close = () => {
    if (commands.some((line) => line.trim() !== '') || expected) {
      result.push({ commands: commands.join('\n').trim(), expected: expected?.join('') });
    }
    commands = [];
    expected = undefined;
  };
  for (const line of code.split('\n')) {
    if (line.startsWith('# -> ')) {
      if (expected) close();
      expected = [line.slice('# -> '.length).trim()];
    } else if (expected && line.startsWith('#')) {
      expected.push(line.slice(1).trim());
    } else {
      if (expected) close();
      commands.push(line);
    }
  }
  close();
  return result;
}

/** A text shown in a document, where `…` and `<a placeholder>` stand for anything. */
export function shapePattern(shown: string): RegExp {
  const pattern = shown.split(/(…|<[^>]+>)/).map((part, i) => (i % 2 === 1 ? '.*?' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${pattern}$`, 's');
}

const ELIDED = '…';

/**
 * A JSON answer as a document shows it, parsed: a bare `…` stands for any value, for more members
 * of an object (key `…`) or for more items of an array (item `…`).
 */
export function parseShownJson(shown: string): unknown {
  let json = '';
  let inString = false;
  const open: string[] = [];
  for (let i = 0; i < shown.length; i++) {
    const c = shown[i]!;
    if (inString) {
      json += c;
      if (c === '\\') json += shown[++i];
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') open.push(c);
    else if (c === '}' || c === ']') open.pop();
    else if (c === ELIDED) {
      const member = open.at(-1) === '{' && json.trimEnd().at(-1) !== ':';
      json += member ? `"${ELIDED}":"${ELIDED}"` : `"${ELIDED}"`;
      continue;
    }
    json += c;
  }
  return JSON.parse(json);
}

/** How `actual` differs from the answer a document shows (parsed by parseShownJson): one line per difference. */
export function differences(actual: unknown, shown: unknown, path = '$'): string[] {
  if (shown === ELIDED) return [];
  if (typeof shown === 'string') {
    return typeof actual === 'string' && shapePattern(shown).test(actual) ? [] : [`${path}: ${JSON.stringify(actual)} is not like ${JSON.stringify(shown)}`];
  }
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual)) return [`${path}: ${JSON.stringify(actual)} is not an array`];
    const items = shown.filter((item) => item !== ELIDED);
    if (items.length === shown.length) {
      if (actual.length !== shown.length) return [`${path}: ${actual.length} items, not ${shown.length}`];
      return items.flatMap((item, i) => differences(actual[i], item, `${path}[${i}]`));
    }
    return items.flatMap((item, i) => (actual.some((candidate) => differences(candidate, item).length === 0)
      ? [] : [`${path}: no item like the shown one #${i}: ${JSON.stringify(item)}`]));
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [`${path}: ${JSON.stringify(actual)} is not an object`];
    const keys = Object.keys(shown).filter((key) => key !== ELIDED);
    const extra = ELIDED in shown ? [] : Object.keys(actual).filter((key) => !keys.includes(key)).map((key) => `${path}.${key}: not shown`);
    return [...extra, ...keys.flatMap((key) => (key in actual
      ? differences((actual as Record<string, unknown>)[key], (shown as Record<string, unknown>)[key], `${path}.${key}`)
      : [`${path}.${key}: missing`]))];
  }
  return actual === shown ? [] : [`${path}: ${JSON.stringify(actual)}, not ${JSON.stringify(shown)}`];
}
