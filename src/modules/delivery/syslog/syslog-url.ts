/** Where a `syslog` webhook sends: `syslog+tls://host:port`. */
export interface SyslogTarget {
  /** A host name or an IP address (IPv6 without its brackets). */
  host: string;
  port: number;
}

export const SYSLOG_PROTOCOL = 'syslog+tls:';

const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9.])?$/;
const IPV6_LITERAL = /^\[[0-9A-Fa-f:.]+\]$/;

/**
 * The destination of a parsed `syslog+tls://host:port` URL, or why it is not one: a host (name,
 * IPv4 or bracketed IPv6), a port from 1 to 65535, and nothing else (no path, query, fragment or
 * credentials). The scheme is checked by the caller.
 */
export function syslogTargetOf(url: URL): SyslogTarget | { problem: string } {
  if (url.username || url.password) return { problem: 'must not contain credentials' };
  if (url.pathname !== '' && url.pathname !== '/') return { problem: 'must not have a path: syslog+tls://host:port' };
  if (url.search || url.hash) return { problem: 'must not have a query or a fragment: syslog+tls://host:port' };
  const host = url.hostname;
  if (!host || !(HOST_NAME.test(host) || IPV6_LITERAL.test(host))) {
    return { problem: 'must name a host (a DNS name or an IP address): syslog+tls://host:port' };
  }
  const port = Number(url.port);
  if (url.port === '' || !Number.isInteger(port) || port < 1 || port > 65535) {
    return { problem: 'must give a port from 1 to 65535: syslog+tls://host:port' };
  }
  return { host: host.replace(/^\[|\]$/g, ''), port };
}

/** The target of a stored `syslog` webhook's URL (validated when it was stored); throws otherwise. */
export function parseSyslogUrl(raw: string): SyslogTarget {
  const url = new URL(raw);
  if (url.protocol !== SYSLOG_PROTOCOL) throw new Error(`not a ${SYSLOG_PROTOCOL}// URL`);
  const target = syslogTargetOf(url);
  if ('problem' in target) throw new Error(`the URL ${target.problem}`);
  return target;
}
