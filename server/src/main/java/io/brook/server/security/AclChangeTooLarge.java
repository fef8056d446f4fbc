package io.brook.server.security;

/**
 * A CreateAcls or DeleteAcls request that would change more than {@link
 * Authorizer#MAX_CHANGES_PER_REQUEST} entries: refused whole, nothing changed. The message is
 * the one the client is answered with (Kafka's words, then the numbers).
 */
public final class AclChangeTooLarge extends RuntimeException {
    private static final long serialVersionUID = 1L;

    AclChangeTooLarge(String what) {
        super("Unable to perform excessively large batch operation: " + what + ", one request may change at most "
                + Authorizer.MAX_CHANGES_PER_REQUEST + " ACLs.");
    }
}
