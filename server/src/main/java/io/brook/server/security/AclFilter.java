package io.brook.server.security;

/**
 * A filter over ACLs, as DescribeAcls and DeleteAcls send it: a null string or the code ANY
 * (1) matches everything; pattern type MATCH (2) matches every entry that would apply to the
 * named resource (its literal entry, the wildcard entry and every prefix entry).
 */
public record AclFilter(byte resourceType, String resourceName, byte patternType, String principal, String host,
        byte operation, byte permission) {

    public boolean matches(Acl acl) {
        if (resourceType != Acl.ANY && resourceType != acl.resourceType()) {
            return false;
        }
        if (patternType == Acl.MATCH) {
            if (resourceName != null && !acl.covers(acl.resourceType(), resourceName)) {
                return false;
            }
        } else {
            if (patternType != Acl.ANY && patternType != acl.patternType()) {
                return false;
            }
            if (resourceName != null && !resourceName.equals(acl.resourceName())) {
                return false;
            }
        }
        return (principal == null || principal.equals(acl.principal()))
                && (host == null || host.equals(acl.host()))
                && (operation == Acl.ANY || operation == acl.operation())
                && (permission == Acl.ANY || permission == acl.permission());
    }

    /** Why this filter is unusable (unknown codes), or null. */
    public String problem() {
        if (resourceType < Acl.ANY || resourceType > Acl.USER || patternType < Acl.ANY || patternType > Acl.PREFIXED
                || operation < Acl.ANY || operation > Acl.TWO_PHASE_COMMIT || permission < Acl.ANY
                || permission > Acl.ALLOW) {
            return "The filter contains an unknown value";
        }
        return null;
    }
}
