package io.brook.server.security;

/**
 * What the broker keeps of a SCRAM password (RFC 5802): the salt, the iteration count, and the
 * stored and server keys derived from the salted password. The password itself, and the salted
 * password, are never kept: they cannot be recovered from these.
 */
record ScramCredential(byte[] salt, byte[] storedKey, byte[] serverKey, int iterations) {
}
