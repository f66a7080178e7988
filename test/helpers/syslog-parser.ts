/*
 * Strict readers of what a syslog receiver gets from the service: an RFC 5424 message and the
 * CEF line it carries. They refuse anything the service must never send (a missing field, a
 * stray escape, an unescaped separator, a line break), so that a test fails when the service's
 * framing or escaping changes.
 */

export interface SyslogMessage {
  facility: number;
  severity: number;
  timestamp: string;
  hostname: string;
  appName: string;
  procId: string;
  msgId: string;
  /** SD-ID -> its params, in order. */
  structuredData: Record<string, Record<string, string>>;
  msg: string;
}

const HEADER = /^<(\d{1,3})>1 (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) ([\x21-\x7e]{1,255}) ([\x21-\x7e]{1,48}) ([\x21-\x7e]{1,128}) ([\x21-\x7e]{1,32}) /;
const SD_NAME = /^[\x21-\x7e]{1,32}$/;

export function parseSyslogMessage(text: string): SyslogMessage {
  const header = HEADER.exec(text);
  if (!header) throw new Error(`not an RFC 5424 header: ${JSON.stringify(text.slice(0, 120))}`);
  const pri = Number(header[1]);
  if (pri > 191) throw new Error(`PRI out of range: ${pri}`);
  let rest = text.slice(header[0].length);
  const structuredData: Record<string, Record<string, string>> = {};
  if (rest.startsWith('-')) {
    rest = rest.slice(1);
  } else {
    if (!rest.startsWith('[')) throw new Error(`no STRUCTURED-DATA: ${JSON.stringify(rest.slice(0, 40))}`);
    while (rest.startsWith('[')) {
      const [id, params, after] = readElement(rest);
      if (structuredData[id]) throw new Error(`SD-ID ${id} twice`);
      structuredData[id] = params;
      rest = after;
    }
  }
  if (rest !== '' && !rest.startsWith(' ')) throw new Error('no space before MSG');
  const msg = rest.slice(1);
  if (msg.startsWith('\ufeff')) throw new Error('MSG starts with a BOM');
  if (/[\r\n]/.test(msg)) throw new Error('a line break in MSG');
  return {
    facility: Math.floor(pri / 8), severity: pri % 8, timestamp: header[2]!, hostname: header[3]!, appName: header[4]!,
    procId: header[5]!, msgId: header[6]!, structuredData, msg,
  };
}

/** `[id name="value" ...]`: values unescaped (`\"`, `\\`, `\]`); an unescaped `]` in a value is refused. */
function readElement(text: string): [string, Record<string, string>, string] {
  let i = 1;
  const word = () => {
    const start = i;
    while (i < text.length && !' =]"'.includes(text[i]!)) i += 1;
    const name = text.slice(start, i);
    if (!SD_NAME.test(name)) throw new Error(`bad SD name ${JSON.stringify(name)}`);
    return name;
  };
  const id = word();
  const params: Record<string, string> = {};
  while (text[i] === ' ') {
    i += 1;
    const name = word();
    if (text.slice(i, i + 2) !== '="') throw new Error(`no ="value" after ${name}`);
    i += 2;
    let value = '';
    for (;;) {
      const c = text[i];
      if (c === undefined) throw new Error('unterminated SD value');
      if (c === '"') break;
      if (c === ']') throw new Error(`unescaped ] in SD value of ${name}`);
      if (c === '\\' && '"\\]'.includes(text[i + 1] ?? '')) {
        value += text[i + 1];
        i += 2;
        continue;
      }
      value += c;
      i += 1;
    }
    params[name] = value;
    i += 1;
  }
  if (text[i] !== ']') throw new Error(`SD element ${id} not closed`);
  return [id, params, text.slice(i + 1)];
}

export interface CefMessage {
  version: string;
  vendor: string;
  product: string;
  productVersion: string;
  signatureId: string;
  name: string;
  severity: number;
  /** Keys in order of appearance, values unescaped. */
  extension: Record<string, string>;
  keys: string[];
}

/** A CEF:0 line: header fields split on unescaped `|` (`\|`, `\\` only), extension `key=value` pairs unescaped. */
export function parseCef(text: string): CefMessage {
  if (!text.startsWith('CEF:0|')) throw new Error(`not CEF:0: ${JSON.stringify(text.slice(0, 40))}`);
  const fields: string[] = [];
  let current = '';
  let i = 'CEF:0|'.length;
  while (fields.length < 6) {
    const c = text[i];
    if (c === undefined) throw new Error(`CEF header has ${fields.length} fields`);
    if (c === '\\') {
      const next = text[i + 1];
      if (next !== '\\' && next !== '|') throw new Error(`stray escape \\${next} in a CEF header field`);
      current += next;
      i += 2;
    } else if (c === '|') {
      fields.push(current);
      current = '';
      i += 1;
    } else {
      current += c;
      i += 1;
    }
  }
  const [vendor, product, productVersion, signatureId, name, severity] = fields as [string, string, string, string, string, string];
  if (!/^(10|[0-9])$/.test(severity)) throw new Error(`CEF severity ${severity}`);
  const { extension, keys } = parseExtension(text.slice(i));
  return { version: '0', vendor, product, productVersion, signatureId, name, severity: Number(severity), extension, keys };
}

function parseExtension(text: string): { extension: Record<string, string>; keys: string[] } {
  const extension: Record<string, string> = {};
  const keys: string[] = [];
  let i = 0;
  while (i < text.length) {
    const key = /^[A-Za-z0-9_]+=/.exec(text.slice(i));
    if (!key) throw new Error(`no key at ${JSON.stringify(text.slice(i, i + 30))}`);
    const name = key[0].slice(0, -1);
    i += key[0].length;
    let value = '';
    for (;;) {
      const c = text[i];
      if (c === undefined) break;
      // The next pair: a space, then a key and an unescaped `=`.
      if (c === ' ' && /^ [A-Za-z0-9_]+=/.test(text.slice(i))) {
        i += 1;
        break;
      }
      if (c === '=') throw new Error(`unescaped = in the value of ${name}`);
      if (c === '\\') {
        const next = text[i + 1];
        const unescaped = next === '\\' ? '\\' : next === '=' ? '=' : next === 'n' ? '\n' : next === 'r' ? '\r' : undefined;
        if (unescaped === undefined) throw new Error(`stray escape \\${next} in the value of ${name}`);
        value += unescaped;
        i += 2;
        continue;
      }
      value += c;
      i += 1;
    }
    if (name in extension) throw new Error(`key ${name} twice`);
    extension[name] = value;
    keys.push(name);
  }
  return { extension, keys };
}

/** An octet-counting stream (RFC 5425) cut into its messages; anything else in it is refused. */
export function splitOctetCounted(stream: Buffer): string[] {
  const messages: string[] = [];
  let i = 0;
  while (i < stream.length) {
    const space = stream.indexOf(0x20, i);
    const length = stream.subarray(i, space).toString('ascii');
    if (space < 0 || !/^[1-9][0-9]*$/.test(length)) throw new Error(`no MSG-LEN at byte ${i}`);
    const end = space + 1 + Number(length);
    if (end > stream.length) throw new Error('a frame longer than the stream');
    messages.push(stream.subarray(space + 1, end).toString('utf8'));
    i = end;
  }
  return messages;
}
