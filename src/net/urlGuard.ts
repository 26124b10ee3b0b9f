/**
 * The outbound URL guard: everything the service fetches or posts to on a caller's behalf (media inputs,
 * provider output files, webhooks) goes through here. The operator switch ATELIER_ALLOW_PRIVATE_URLS=1
 * arrives as `allowPrivate`; this module reads no environment.
 */
export { classifyAddress, parseIPv4, parseIPv6, type AddressClass, type AddressVerdict } from './addresses.js';
export { checkUrl, describeUrl, systemResolver, type CheckUrlOptions, type CheckedUrl, type ResolvedAddress, type Resolver } from './checkUrl.js';
export { guardedFetch, type GuardedFetchOptions, type GuardedResponse } from './guardedFetch.js';
export { OutboundError, type OutboundFailure } from './errors.js';
