import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** Address ranges a webhook may never reach (unless private targets are allowed). */
const IPV4_BLOCKED: Array<[string, number, string]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const IPV6_BLOCKED: Array<[string, number, string]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::ffff:0:0', 96, 'IPv4-mapped'],
  ['::', 96, 'IPv4-compatible'],
  ['64:ff9b::', 96, 'NAT64'],
  ['64:ff9b:1::', 48, 'NAT64 (local)'],
  ['100::', 64, 'discard'],
  ['2001::', 32, 'Teredo'],
  ['2001:db8::', 32, 'documentation'],
  ['2002::', 16, '6to4'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

// One list per range to name the reason; each family is checked only against its own ranges,
// because a BlockList also matches IPv4 addresses against IPv4-mapped IPv6 rules.
const RANGES = {
  ipv4: IPV4_BLOCKED.map(([network, prefix, label]) => ({ list: subnet(network, prefix, 'ipv4'), label })),
  ipv6: IPV6_BLOCKED.map(([network, prefix, label]) => ({ list: subnet(network, prefix, 'ipv6'), label })),
};

function subnet(network: string, prefix: number, type: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return list;
}

/** Why `address` (an IP literal) is not a public unicast address, or null when it is. */
export function blockedAddressReason(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return 'not an IP address';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const match = RANGES[type].find(({ list }) => list.check(bare, type));
  return match ? match.label : null;
}

/** Ends every refusal of a non-public address, at registration and at delivery alike. */
export const PRIVATE_TARGETS_HINT =
  'to allow private and loopback receivers (local tests, on-premise installs), start the service with WEBHOOK_ALLOW_PRIVATE_TARGETS=true';

export class BlockedTargetError extends Error {
  readonly code = 'EBLOCKEDTARGET';
  constructor(host: string, address: string, reason: string) {
    super(`refused to connect to ${host}: address ${address} is not public (${reason}); ${PRIVATE_TARGETS_HINT}`);
  }
}

/** Throws when any of `addresses` is not public. */
function assertPublicAddresses(host: string, addresses: readonly string[]): void {
  for (const address of addresses) {
    const reason = blockedAddressReason(address);
    if (reason) throw new BlockedTargetError(host, address, reason);
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `dns.lookup` for sockets that resolves every address of the host and fails unless all are
 * public. The socket then connects to an address that was checked (no re-resolution in between).
 */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    try {
      assertPublicAddresses(hostname, addresses.map((a) => a.address));
    } catch (blocked) {
      return callback(blocked as NodeJS.ErrnoException, []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), []);
    return callback(null, first.address, first.family);
  });
}

const RESOLVE_TIMEOUT_MS = 5000;

/** Resolves `host` (or takes the literal) and returns why it is not acceptable, or null. */
export async function checkTargetHost(host: string): Promise<string | null> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) {
    const reason = blockedAddressReason(bare);
    return reason ? `is not a public address (${reason}); ${PRIVATE_TARGETS_HINT}` : null;
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), RESOLVE_TIMEOUT_MS);
  });
  try {
    const addresses = await Promise.race([resolveAll(bare), timeout]);
    for (const address of addresses) {
      const reason = blockedAddressReason(address);
      if (reason) return `resolves to ${address}, which is not a public address (${reason}); ${PRIVATE_TARGETS_HINT}`;
    }
    return addresses.length ? null : 'does not resolve to any address';
  } catch {
    return 'could not be resolved';
  } finally {
    clearTimeout(timer);
  }
}

function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses.map((a) => a.address))));
  });
}
