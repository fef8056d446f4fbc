package io.brook.server.security;

import static io.brook.server.security.Acl.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The authorizer's indexed look-ups answer as a plain scan of every entry does: random sets of a
 * few hundred entries over a small alphabet of names, prefixes, principals, hosts and operations
 * (so that names, prefixes and wildcards overlap often), each asked every combination of a
 * similar alphabet, against the reference scans below.
 */
class AclLookupEquivalenceTest {

    private static final byte[] TYPES = {TOPIC, GROUP};
    private static final String[] PATTERN_NAMES = {"a", "ab", "abc", "b", "ba", "bb-", "*", "*a", "x"};
    private static final String[] NAMES = {"a", "ab", "abc", "abcd", "b", "ba", "bb-x", "*", "*a", "*b", "x", "y", ""};
    private static final String[] ACL_PRINCIPALS = {"User:alice", "User:bob", "User:carol", WILDCARD_PRINCIPAL};
    private static final String[] PRINCIPALS = {"User:alice", "User:bob", "User:carol", "User:dave", WILDCARD_PRINCIPAL};
    private static final String[] ACL_HOSTS = {"h1", "h2", WILDCARD};
    private static final String[] HOSTS = {"h1", "h2", "h3"};
    private static final byte[] ACL_OPERATIONS = {ALL, READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS,
        ALTER_CONFIGS};
    private static final byte[] OPERATIONS = {READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS,
        ALTER_CONFIGS, IDEMPOTENT_WRITE};
    private static final int SEEDS = 30;

    @Test
    void authorizeAnswersAsAScanOfEveryEntry() throws Exception {
        for (int seed = 0; seed < SEEDS; seed++) {
            List<Acl> acls = randomAcls(new Random(seed));
            for (boolean allowIfNoAcl : new boolean[] {false, true}) {
                Authorizer a = authorizer(allowIfNoAcl, acls);
                for (String principal : PRINCIPALS) {
                    for (String host : HOSTS) {
                        for (byte op : OPERATIONS) {
                            for (byte type : TYPES) {
                                for (String name : NAMES) {
                                    assertThat(a.authorize(principal, host, op, type, name))
                                            .as("seed %d, allow if no ACL %s: %s from %s, operation %d on %d/%s",
                                                    seed, allowIfNoAcl, principal, host, op, type, name)
                                            .isEqualTo(authorizeByScan(acls, allowIfNoAcl, principal, host, op, type,
                                                    name));
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void authorizeByResourceTypeAnswersAsAScanOfEveryEntry() throws Exception {
        for (int seed = 0; seed < SEEDS; seed++) {
            List<Acl> acls = randomAcls(new Random(seed));
            for (boolean allowIfNoAcl : new boolean[] {false, true}) {
                Authorizer a = authorizer(allowIfNoAcl, acls);
                for (String principal : PRINCIPALS) {
                    for (String host : HOSTS) {
                        for (byte op : OPERATIONS) {
                            for (byte type : TYPES) {
                                assertThat(a.authorizeByResourceType(principal, host, op, type))
                                        .as("seed %d, allow if no ACL %s: %s from %s, operation %d on type %d", seed,
                                                allowIfNoAcl, principal, host, op, type)
                                        .isEqualTo(authorizeByResourceTypeByScan(acls, allowIfNoAcl, principal, host,
                                                op, type));
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void describeAndDeleteMatchAsAScanOfEveryEntry() throws Exception {
        for (int seed = 0; seed < SEEDS; seed++) {
            Random random = new Random(seed);
            List<Acl> acls = randomAcls(random);
            Authorizer a = authorizer(false, acls);
            for (int i = 0; i < 200; i++) {
                AclFilter f = randomFilter(random);
                assertThat(a.describe(f)).as("seed %d, %s", seed, f).containsExactlyElementsOf(describeByScan(acls, f));
            }
            List<AclFilter> filters = List.of(randomFilter(random), randomFilter(random), randomFilter(random));
            List<List<Acl>> removed = a.delete(filters).join();
            Set<Acl> gone = new HashSet<>();
            for (int i = 0; i < filters.size(); i++) {
                List<Acl> expected = describeByScan(acls, filters.get(i));
                assertThat(removed.get(i)).as("seed %d, %s", seed, filters.get(i)).containsExactlyElementsOf(expected);
                gone.addAll(expected);
            }
            List<Acl> left = acls.stream().filter(acl -> !gone.contains(acl)).toList();
            assertThat(a.describe(new AclFilter(ANY, null, ANY, null, null, ANY, ANY))).containsExactlyElementsOf(left);
        }
    }

    private static Authorizer authorizer(boolean allowIfNoAcl, List<Acl> acls) throws Exception {
        Authorizer a = Authorizer.create(Map.of("authorizer.class.name", Authorizer.KAFKA_STANDARD_AUTHORIZER,
                "allow.everyone.if.no.acl.found", String.valueOf(allowIfNoAcl)), null);
        a.replaceAll(acls);
        return a;
    }

    /** Distinct entries; a few with codes no valid entry has (another pattern type, permission ANY). */
    private static List<Acl> randomAcls(Random random) {
        Set<Acl> out = new HashSet<>();
        int count = 100 + random.nextInt(300);
        List<Acl> ordered = new ArrayList<>();
        while (ordered.size() < count) {
            int p = random.nextInt(100);
            byte pattern = p < 50 ? LITERAL : p < 97 ? PREFIXED : MATCH;
            int d = random.nextInt(100);
            byte permission = d < 30 ? DENY : d < 98 ? ALLOW : ANY;
            Acl acl = new Acl(TYPES[random.nextInt(TYPES.length)], pick(random, PATTERN_NAMES), pattern,
                    pick(random, ACL_PRINCIPALS), pick(random, ACL_HOSTS),
                    ACL_OPERATIONS[random.nextInt(ACL_OPERATIONS.length)], permission);
            if (out.add(acl)) {
                ordered.add(acl);
            }
        }
        return List.copyOf(ordered);
    }

    private static AclFilter randomFilter(Random random) {
        byte type = random.nextInt(3) == 0 ? ANY : TYPES[random.nextInt(TYPES.length)];
        byte pattern = new byte[] {ANY, MATCH, LITERAL, PREFIXED}[random.nextInt(4)];
        String name = random.nextInt(3) == 0 ? null : random.nextBoolean() ? pick(random, NAMES)
                : pick(random, PATTERN_NAMES);
        String principal = random.nextInt(3) == 0 ? null : pick(random, PRINCIPALS);
        String host = random.nextInt(3) == 0 ? pick(random, ACL_HOSTS) : null;
        byte op = random.nextBoolean() ? ANY : ACL_OPERATIONS[random.nextInt(ACL_OPERATIONS.length)];
        byte permission = new byte[] {ANY, ALLOW, DENY}[random.nextInt(3)];
        return new AclFilter(type, name, pattern, principal, host, op, permission);
    }

    private static String pick(Random random, String[] from) {
        return from[random.nextInt(from.length)];
    }

    /** Kafka's rules read literally: every entry is looked at. */
    private static boolean authorizeByScan(List<Acl> acls, boolean allowIfNoAcl, String principal, String host,
            byte op, byte type, String name) {
        boolean covered = false;
        boolean allowed = false;
        boolean denied = false;
        for (Acl a : acls) {
            boolean patternCovers = a.resourceType() == type
                    && (a.patternType() == LITERAL && (a.resourceName().equals(name) || a.resourceName().equals(WILDCARD))
                            || a.patternType() == PREFIXED && name.startsWith(a.resourceName()));
            if (!patternCovers) {
                continue;
            }
            covered = true;
            boolean who = a.principal().equals(principal) || a.principal().equals(WILDCARD_PRINCIPAL);
            boolean where = a.host().equals(host) || a.host().equals(WILDCARD);
            if (!who || !where) {
                continue;
            }
            boolean sameOperation = a.operation() == op || a.operation() == ALL;
            if (a.permission() == DENY) {
                denied |= sameOperation;
            } else {
                allowed |= sameOperation || implied(a.operation(), op);
            }
        }
        return !denied && (allowed || (!covered && allowIfNoAcl));
    }

    private static boolean implied(byte granted, byte wanted) {
        return wanted == DESCRIBE && (granted == READ || granted == WRITE || granted == DELETE || granted == ALTER)
                || wanted == DESCRIBE_CONFIGS && granted == ALTER_CONFIGS;
    }

    /**
     * Authorization by resource type read literally: the "hardcode" resource first, then an
     * ALLOW of the operation (or ALL) on a pattern that no DENY of it covers whole.
     */
    private static boolean authorizeByResourceTypeByScan(List<Acl> acls, boolean allowIfNoAcl, String principal,
            String host, byte op, byte type) {
        if (authorizeByScan(acls, allowIfNoAcl, principal, host, op, type, "hardcode")) {
            return true;
        }
        List<Acl> mine = acls.stream().filter(a -> a.resourceType() == type
                && (a.principal().equals(principal) || a.principal().equals(WILDCARD_PRINCIPAL))
                && (a.host().equals(host) || a.host().equals(WILDCARD))
                && (a.operation() == op || a.operation() == ALL)).toList();
        List<Acl> denies = mine.stream().filter(a -> a.permission() == DENY).toList();
        if (denies.stream().anyMatch(d -> d.patternType() == LITERAL && d.resourceName().equals(WILDCARD))) {
            return false;
        }
        for (Acl allow : mine) {
            if (allow.permission() != ALLOW) {
                continue;
            }
            if (allow.patternType() == LITERAL && allow.resourceName().equals(WILDCARD)) {
                return true;
            }
            boolean coveredByDeny = denies.stream().anyMatch(d -> d.patternType() == PREFIXED
                    ? allow.resourceName().startsWith(d.resourceName())
                    : allow.patternType() == LITERAL && d.resourceName().equals(allow.resourceName()));
            if (!coveredByDeny) {
                return true;
            }
        }
        return false;
    }

    private static List<Acl> describeByScan(List<Acl> acls, AclFilter f) {
        return acls.stream().filter(f::matches).toList();
    }
}
