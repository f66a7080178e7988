import { describe, expect, it } from 'vitest';
import { codeBlocks, differences, parseShownJson, section, shapePattern, snippets, subheadings } from '../helpers/markdown.js';

// The README tour's test trusts these to read the README as a reader does; here is how they read.

const DOC = `# Title

## Tour

Intro.

\`\`\`sh
# a comment, not a heading
echo one
# -> one
echo two
# -> {"a":1,
#     "b":2}
\`\`\`

### Step

\`\`\`text
{"x":"…"}
\`\`\`

## After
`;

describe('reading a Markdown document', () => {
  it('cuts sections by heading, ignoring the # comments of code blocks', () => {
    const tour = section(DOC, '## Tour');
    expect(tour.split('\n').at(-2)).toBe('```');
    expect(tour).not.toContain('## After');
    expect(subheadings(tour)).toEqual(['### Step']);
    expect(() => section(DOC, '## Missing')).toThrow('no heading "## Missing"');
  });

  it('lists code blocks with their language, and cuts shell blocks at their # -> answers', () => {
    const blocks = codeBlocks(section(DOC, '## Tour'));
    expect(blocks.map((block) => block.lang)).toEqual(['sh', 'text']);
    expect(snippets(blocks[0]!.code)).toEqual([
      { commands: '# a comment, not a heading\necho one', expected: 'one' },
      { commands: 'echo two', expected: '{"a":1,"b":2}' },
    ]);
    expect(snippets('A=1\n\necho "$A"')).toEqual([{ commands: 'A=1\n\necho "$A"', expected: undefined }]);
  });
});

describe('comparing an answer with the one shown', () => {
  const compare = (actual: unknown, shown: string) => differences(actual, parseShownJson(shown));

  it('takes … for any value, more members or more items, and <a placeholder> for any text', () => {
    expect(compare({ id: 'ugt_1', n: 3, more: true }, '{"id":"ugt_…","n":…,…}')).toEqual([]);
    expect(compare({ list: [1, 2], by: 'u1' }, '{"list":[…],"by":"<your user id>"}')).toEqual([]);
    expect(compare({ list: [{ a: 1, b: 2 }, { a: 3 }] }, '{"list":[{"a":3},…]}')).toEqual([]);
    expect(shapePattern('ugk_…').test('ugk_abc')).toBe(true);
    expect(shapePattern('ugk_…').test('ugt_abc')).toBe(false);
  });

  it('names every difference: a value, a prefix, a missing or unshown key, a length, a type', () => {
    expect(compare({ total: 2 }, '{"total":1}')).toEqual(['$.total: 2, not 1']);
    expect(compare({ id: 'wh_1' }, '{"id":"whk_…"}')).toEqual(['$.id: "wh_1" is not like "whk_…"']);
    expect(compare({ a: 1 }, '{"a":1,"b":…}')).toEqual(['$.b: missing']);
    expect(compare({ a: 1, extra: 0 }, '{"a":1}')).toEqual(['$.extra: not shown']);
    expect(compare({ l: [1, 2] }, '{"l":[1]}')).toEqual(['$.l: 2 items, not 1']);
    expect(compare({ l: [{ a: 1 }] }, '{"l":[{"a":2},…]}')).toEqual(['$.l: no item like the shown one #0: {"a":2}']);
    expect(compare({ o: 'x' }, '{"o":{…}}')).toEqual(['$.o: "x" is not an object']);
  });
});
