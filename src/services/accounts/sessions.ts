// The session resolver private routes use (orders, fills, balance, ...), re-exported so http names its type
// without reaching into the vault.
export { type CredentialRequest, SessionResolver } from '../../vault/session-resolver.js';
