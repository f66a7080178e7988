/*
 * RFC 5424 syslog messages and their RFC 5425 (syslog over TLS) octet-counting frames.
 */

/** Facilities used (RFC 5424, 6.2.1): audit entries go to authpriv, everything else to local4. */
export const FACILITY = { authpriv: 10, local4: 20 } as const;

/** The registered-style SD-ID of the service's element: a private name `name@<enterprise number>`. */
export const SD_ID = 'ugs@32473';

export interface SyslogHeader {
  facility: number;
  /** 0 emergency … 7 debug. */
  severity: number;
  /** The event's time (RFC 3339 with milliseconds, UTC). */
  timestamp: Date;
  hostname: string;
  appName: string;
  procId: string;
  msgId: string;
  /** SD-PARAMs of the service's element, in order; none gives `-`. */
  structuredData: Array<[string, string]>;
}

/** One message: `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA MSG`, MSG without a BOM. */
export function syslogMessage(header: SyslogHeader, msg: string): string {
  const pri = header.facility * 8 + header.severity;
  const sd = header.structuredData.length === 0 ? '-'
    : `[${SD_ID}${header.structuredData.map(([name, value]) => ` ${name}="${escapeSdValue(value)}"`).join('')}]`;
  const fields = [
    `<${pri}>1`,
    header.timestamp.toISOString(),
    headerField(header.hostname, 255),
    headerField(header.appName, 48),
    headerField(header.procId, 128),
    headerField(header.msgId, 32),
    sd,
  ];
  return `${fields.join(' ')} ${msg}`;
}

/** A PARAM-VALUE (RFC 5424, 6.3.3): `"`, `\` and `]` escaped with a backslash. */
export function escapeSdValue(value: string): string {
  return value.replace(/["\\\]]/g, (c) => `\\${c}`);
}

/**
 * A header field: printable US-ASCII (33 to 126) of at most `max` characters; anything else in it
 * becomes `_`, and an empty field is the nil value `-`.
 */
export function headerField(value: string, max: number): string {
  const printable = value.replace(/[^\x21-\x7e]/g, '_').slice(0, max);
  return printable === '' ? '-' : printable;
}

/**
 * RFC 5425's frames of `messages`, one after the other, in one buffer (encoded once, not frame by
 * frame): `MSG-LEN SP SYSLOG-MSG` each, the length in octets of the UTF-8 message.
 */
export function octetCountingFrames(messages: readonly string[]): Buffer {
  return Buffer.from(messages.map((message) => `${Buffer.byteLength(message, 'utf8')} ${message}`).join(''), 'utf8');
}
