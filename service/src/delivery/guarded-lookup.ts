// DNS resolution that refuses non-public addresses and hands the socket only the address it checked,
// so a name cannot resolve to a public address for the check and a private one for the connection.
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { ALLOW_PRIVATE_URLS_HINT, isPublicAddress } from '../security/address-policy';

export type LookupAll = (hostname: string) => Promise<LookupAddress[]>;

export interface HostAddress {
  address: string;
  family: 4 | 6;
}

/**
 * Addresses by host name (as a URL spells it, in lower case), consulted before DNS like /etc/hosts. Tests use
 * it to make a name resolve to a chosen address; it is plain data, so it crosses into the sender thread.
 */
export type HostsTable = Readonly<Record<string, readonly HostAddress[]>>;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

export class BlockedAddressError extends Error {
  readonly code = 'EJOBHOOKS_BLOCKED_ADDRESS';
}

const dnsResolve: LookupAll = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** Resolves a name from `hosts` when it is listed there, and with `fallback` (DNS) otherwise. */
export function resolverWith(hosts: HostsTable = {}, fallback: LookupAll = dnsResolve): LookupAll {
  return (hostname) => {
    // hasOwn, so a name such as "constructor" is not looked up on Object.prototype.
    const listed = Object.hasOwn(hosts, hostname) ? hosts[hostname] : undefined;
    return listed !== undefined ? Promise.resolve(listed.map((entry) => ({ ...entry }))) : fallback(hostname);
  };
}

/** A `lookup` for net/tls.connect that resolves with `resolve` and keeps only public addresses. */
export function createGuardedLookup(resolve: LookupAll, allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname)
      .then((addresses) => {
        const usable = allowPrivate ? addresses : addresses.filter((entry) => isPublicAddress(entry.address));
        if (usable.length === 0) {
          throw new BlockedAddressError(
            `${hostname} resolves only to private or otherwise non-public addresses; ${ALLOW_PRIVATE_URLS_HINT}.`,
          );
        }
        const wanted =
          options.family === 4 || options.family === 6 ? usable.filter((a) => a.family === options.family) : usable;
        const chosen = wanted.length > 0 ? wanted : usable;
        if (options.all) callback(null, chosen);
        else callback(null, chosen[0]!.address, chosen[0]!.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, ''));
  };
}
