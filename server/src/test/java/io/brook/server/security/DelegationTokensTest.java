package io.brook.server.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.brook.server.security.quota.ClientQuotaStore;
import io.brook.wire.protocol.Errors;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The delegation token store on a single node, on a clock the test moves: Kafka's lifetimes,
 * who may renew and expire a token, the lazy sweep of expired tokens, what survives a restart,
 * and the SCRAM credential a token logs in with; and two nodes sharing a stand-in for the
 * cluster's metadata log, whose changes reach it in an order the test picks.
 */
class DelegationTokensTest {

    private static final long T0 = 1_700_000_000_000L;
    private static final String SECRET = "s\u00e9cret-\u043a\u043b\u044e\u0447";
    private static final long MAX_LIFETIME = 7_000_000L;
    private static final long EXPIRY_TIME = 1_000_000L;
    private static final long CHECK_INTERVAL = 3_000_000L;
    private static final String ALICE = "User:alice";
    private static final String BOB = "User:bob";
    private static final String CAROL = "User:carol";
    private static final String MALLORY = "User:mallory";

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(T0);

    private static DelegationTokens.Settings settings(String secret) {
        return new DelegationTokens.Settings(secret, MAX_LIFETIME, EXPIRY_TIME, CHECK_INTERVAL);
    }

    private DelegationTokens open(String secret) throws Exception {
        return DelegationTokens.open(dir, settings(secret), now::get);
    }

    private DelegationTokens open() throws Exception {
        return open(SECRET);
    }

    /** HMAC-SHA512 of the token id under the secret key, both as UTF-8, computed apart from the store. */
    private static byte[] expectedHmac(String secret, String tokenId) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA512");
        mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA512"));
        return mac.doFinal(tokenId.getBytes(StandardCharsets.UTF_8));
    }

    private static DelegationTokens.Created create(DelegationTokens store, String owner, List<String> renewers,
            long maxLifetimeMs) {
        DelegationTokens.Created c = store.create(owner, owner, renewers, maxLifetimeMs).join();
        assertThat(c.error()).isEqualTo(Errors.NONE);
        return c;
    }

    private String fileText() throws Exception {
        return Files.readString(dir.resolve(DelegationTokens.FILE_NAME), StandardCharsets.UTF_8);
    }

    // --- disabled ---------------------------------------------------------------------------

    @Test
    void withoutASecretKeyEveryRequestIsAuthDisabledAndNoLoginWorks() throws Exception {
        DelegationTokens store = open(null);
        assertThat(store.enabled()).isFalse();
        DelegationTokens.Created c = store.create(ALICE, ALICE, List.of(), 0).join();
        assertThat(c.error()).isEqualTo(Errors.DELEGATION_TOKEN_AUTH_DISABLED);
        assertThat(c.token()).isNull();
        assertThat(c.hmac()).isNull();
        byte[] someHmac = expectedHmac("any", "any");
        assertThat(store.renew(someHmac, ALICE, 0).join())
                .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_AUTH_DISABLED, -1));
        assertThat(store.expire(someHmac, ALICE, -1).join())
                .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_AUTH_DISABLED, -1));
        assertThat(store.login("any", ScramMechanism.SCRAM_SHA_256)).isNull();
        assertThat(store.all()).isEmpty();
        assertThat(dir.resolve(DelegationTokens.FILE_NAME)).doesNotExist();
    }

    @Test
    void aDisabledStoreLetsNoTokenOnDiskLogIn() throws Exception {
        String id = create(open(), ALICE, List.of(), 0).token().tokenId();
        DelegationTokens disabled = open(null);
        assertThat(disabled.login(id, ScramMechanism.SCRAM_SHA_512)).isNull();
    }

    // --- create -----------------------------------------------------------------------------

    @Test
    void aNewTokenLastsTheExpiryTimeWithinTheConfiguredMaximum() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = store.create(BOB, ALICE, List.of(CAROL), 0).join();
        assertThat(c.error()).isEqualTo(Errors.NONE);
        DelegationToken t = c.token();
        assertThat(t.owner()).isEqualTo(BOB);
        assertThat(t.requester()).isEqualTo(ALICE);
        assertThat(t.renewers()).containsExactly(CAROL);
        assertThat(t.issueTimestampMs()).isEqualTo(T0);
        assertThat(t.maxTimestampMs()).isEqualTo(T0 + MAX_LIFETIME);
        assertThat(t.expiryTimestampMs()).isEqualTo(T0 + EXPIRY_TIME);
        assertThat(store.all()).containsExactly(t);
    }

    @Test
    void aRequestedLifetimeShortensTheMaximumButNeverExtendsIt() throws Exception {
        DelegationTokens store = open();
        now.set(T0 + 5);
        long issued = T0 + 5;
        assertThat(create(store, ALICE, List.of(), MAX_LIFETIME + 1).token().maxTimestampMs())
                .as("asked for more than allowed").isEqualTo(issued + MAX_LIFETIME);
        assertThat(create(store, ALICE, List.of(), -1).token().maxTimestampMs()).as("-1: the configured")
                .isEqualTo(issued + MAX_LIFETIME);
        assertThat(create(store, ALICE, List.of(), 0).token().maxTimestampMs()).as("0: the configured")
                .isEqualTo(issued + MAX_LIFETIME);

        DelegationToken longer = create(store, ALICE, List.of(), EXPIRY_TIME * 2).token();
        assertThat(longer.maxTimestampMs()).isEqualTo(issued + EXPIRY_TIME * 2);
        assertThat(longer.expiryTimestampMs()).as("still the expiry time").isEqualTo(issued + EXPIRY_TIME);

        DelegationToken shorter = create(store, ALICE, List.of(), 1234).token();
        assertThat(shorter.issueTimestampMs()).isEqualTo(issued);
        assertThat(shorter.maxTimestampMs()).isEqualTo(issued + 1234);
        assertThat(shorter.expiryTimestampMs()).as("never beyond the maximum").isEqualTo(issued + 1234);
    }

    @Test
    void theHmacIsHmacSha512OfTheTokenIdUnderTheSecretKey() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = create(store, ALICE, List.of(), 0);
        byte[] expected = expectedHmac(SECRET, c.token().tokenId());
        assertThat(c.hmac()).hasSize(64).isEqualTo(expected);
        assertThat(store.hmac(c.token().tokenId())).isEqualTo(expected);
        assertThat(c.hmac()).as("another key, another HMAC")
                .isNotEqualTo(expectedHmac(SECRET + "x", c.token().tokenId()));
    }

    @Test
    void tokenIdsAreUniqueAndUrlSafe() throws Exception {
        DelegationTokens store = DelegationTokens.open(null, settings(SECRET), now::get); // no file: no fsync per token
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            ids.add(create(store, ALICE, List.of(), 0).token().tokenId());
        }
        assertThat(ids).hasSize(200).allSatisfy(id -> assertThat(id).matches("[A-Za-z0-9_-]{22}"));
        assertThat(store.all()).hasSize(200);
    }

    // --- renew ------------------------------------------------------------------------------

    @Test
    void theOwnerAndTheRenewersMayRenewOthersMayNot() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = store.create(BOB, ALICE, List.of(CAROL), 0).join();
        now.addAndGet(100);
        assertThat(store.renew(c.hmac(), BOB, 500).join()).isEqualTo(new DelegationTokens.Changed(Errors.NONE,
                T0 + 600));
        now.addAndGet(100);
        assertThat(store.renew(c.hmac(), CAROL, 700).join()).isEqualTo(new DelegationTokens.Changed(Errors.NONE,
                T0 + 900));
        assertThat(store.renew(c.hmac(), MALLORY, 700).join())
                .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_OWNER_MISMATCH, -1));
        assertThat(store.renew(c.hmac(), ALICE, 700).join()).as("the requester is neither owner nor renewer")
                .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_OWNER_MISMATCH, -1));
        assertThat(store.all()).singleElement().extracting(DelegationToken::expiryTimestampMs)
                .as("refused renewals change nothing").isEqualTo(T0 + 900);
        assertThat(open().all()).singleElement().extracting(DelegationToken::expiryTimestampMs)
                .as("a renewal is written").isEqualTo(T0 + 900);
    }

    @Test
    void anUnknownHmacIsNotFound() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = create(store, ALICE, List.of(), 0);
        byte[] other = c.hmac().clone();
        other[0] ^= 1;
        assertThat(store.renew(other, ALICE, 0).join())
                .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_NOT_FOUND, -1));
        assertThat(store.renew(null, ALICE, 0).join())
                .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_NOT_FOUND, -1));
        assertThat(store.renew(new byte[0], ALICE, 0).join())
                .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_NOT_FOUND, -1));
        assertThat(store.expire(other, ALICE, 0).join())
                .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_NOT_FOUND, -1));
    }

    @Test
    void aTokenPastItsExpiryCannotBeRenewed() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = create(store, ALICE, List.of(), 0);
        now.set(T0 + EXPIRY_TIME);
        assertThat(store.renew(c.hmac(), ALICE, 10).join()).as("usable up to its expiry, inclusive")
                .isEqualTo(new DelegationTokens.Changed(Errors.NONE, T0 + EXPIRY_TIME + 10));
        now.set(T0 + EXPIRY_TIME + 11);
        assertThat(store.renew(c.hmac(), ALICE, 10).join())
                .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_EXPIRED, -1));
        assertThat(store.all()).singleElement().extracting(DelegationToken::expiryTimestampMs)
                .isEqualTo(T0 + EXPIRY_TIME + 10);
    }

    @Test
    void aTokenPastItsMaximumCannotBeRenewed() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = create(store, ALICE, List.of(), 300);
        now.set(T0 + 200);
        assertThat(store.renew(c.hmac(), ALICE, 0).join().expiryTimestampMs()).isEqualTo(T0 + 300);
        now.set(T0 + 301);
        assertThat(store.renew(c.hmac(), ALICE, 0).join().error()).isEqualTo(Errors.DELEGATION_TOKEN_EXPIRED);
    }

    @Test
    void aRenewalLastsAtMostTheExpiryTimeAndNeverBeyondTheMaximum() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = create(store, ALICE, List.of(), 0);
        now.set(T0 + 1000);
        assertThat(store.renew(c.hmac(), ALICE, EXPIRY_TIME * 3).join().expiryTimestampMs())
                .as("asked for more than the expiry time").isEqualTo(T0 + 1000 + EXPIRY_TIME);
        assertThat(store.renew(c.hmac(), ALICE, 0).join().expiryTimestampMs()).as("0: the expiry time")
                .isEqualTo(T0 + 1000 + EXPIRY_TIME);
        assertThat(store.renew(c.hmac(), ALICE, -5).join().expiryTimestampMs()).as("-5: the expiry time")
                .isEqualTo(T0 + 1000 + EXPIRY_TIME);
        assertThat(store.renew(c.hmac(), ALICE, 1).join().expiryTimestampMs()).as("a renewal may shorten it")
                .isEqualTo(T0 + 1001);
        assertThat(store.all()).singleElement().extracting(DelegationToken::maxTimestampMs)
                .as("renewals never move the maximum").isEqualTo(T0 + MAX_LIFETIME);

        DelegationTokens.Created shortLived = create(store, ALICE, List.of(), 1500);
        now.set(T0 + 2490);
        assertThat(store.renew(shortLived.hmac(), ALICE, 1).join())
                .isEqualTo(new DelegationTokens.Changed(Errors.NONE, T0 + 2491));
        assertThat(store.renew(shortLived.hmac(), ALICE, EXPIRY_TIME).join()).as("clamped to the maximum")
                .isEqualTo(new DelegationTokens.Changed(Errors.NONE, T0 + 2500));
        assertThat(store.renew(shortLived.hmac(), ALICE, 0).join().expiryTimestampMs()).isEqualTo(T0 + 2500);
    }

    // --- expire -----------------------------------------------------------------------------

    @Test
    void aNegativePeriodRemovesTheTokenAtOnce() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created gone = create(store, ALICE, List.of(), 0);
        DelegationTokens.Created kept = create(store, ALICE, List.of(), 0);
        now.addAndGet(10);
        assertThat(store.expire(gone.hmac(), ALICE, -1).join().error()).isEqualTo(Errors.NONE);
        assertThat(store.all()).containsExactly(kept.token());
        assertThat(fileText()).doesNotContain(gone.token().tokenId()).contains(kept.token().tokenId());
        assertThat(open().all()).containsExactly(kept.token());
        assertThat(store.renew(gone.hmac(), ALICE, 0).join().error()).isEqualTo(Errors.DELEGATION_TOKEN_NOT_FOUND);
        assertThat(store.expire(gone.hmac(), ALICE, -1).join().error()).isEqualTo(Errors.DELEGATION_TOKEN_NOT_FOUND);
    }

    @Test
    void aPositivePeriodMovesTheExpiryWithinTheMaximum() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = store.create(BOB, BOB, List.of(CAROL), 0).join();
        now.set(T0 + 50);
        assertThat(store.expire(c.hmac(), BOB, 0).join()).as("0: expires now")
                .isEqualTo(new DelegationTokens.Changed(Errors.NONE, T0 + 50));
        assertThat(store.all()).singleElement().extracting(DelegationToken::expiryTimestampMs).isEqualTo(T0 + 50);
        assertThat(store.expire(c.hmac(), CAROL, EXPIRY_TIME * 3).join()).as("not bounded by the expiry time")
                .isEqualTo(new DelegationTokens.Changed(Errors.NONE, T0 + 50 + EXPIRY_TIME * 3));
        assertThat(store.expire(c.hmac(), BOB, MAX_LIFETIME).join()).as("but by the maximum")
                .isEqualTo(new DelegationTokens.Changed(Errors.NONE, T0 + MAX_LIFETIME));
        assertThat(open().all()).singleElement().extracting(DelegationToken::expiryTimestampMs)
                .as("an expiry is written").isEqualTo(T0 + MAX_LIFETIME);
    }

    @Test
    void onlyTheOwnerAndTheRenewersMayExpireAToken() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = store.create(BOB, ALICE, List.of(CAROL), 0).join();
        for (long period : new long[] {-1, 0, 10}) {
            assertThat(store.expire(c.hmac(), MALLORY, period).join()).as("period %d", period)
                    .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_OWNER_MISMATCH, -1));
            assertThat(store.expire(c.hmac(), ALICE, period).join()).as("the requester, period %d", period)
                    .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_OWNER_MISMATCH, -1));
        }
        assertThat(store.all()).containsExactly(c.token());
        assertThat(store.expire(c.hmac(), CAROL, -1).join().error()).isEqualTo(Errors.NONE);
        assertThat(store.all()).isEmpty();
    }

    @Test
    void anExpiredTokenCannotBeGivenANewExpiryButCanBeRemoved() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = create(store, ALICE, List.of(), 0);
        now.set(T0 + EXPIRY_TIME + 1);
        assertThat(store.expire(c.hmac(), ALICE, 100).join())
                .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_EXPIRED, -1));
        assertThat(store.expire(c.hmac(), ALICE, 0).join())
                .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_EXPIRED, -1));
        assertThat(store.all()).as("not swept yet").hasSize(1);
        assertThat(store.expire(c.hmac(), MALLORY, -1).join().error())
                .isEqualTo(Errors.DELEGATION_TOKEN_OWNER_MISMATCH);
        assertThat(store.expire(c.hmac(), ALICE, -1).join().error()).isEqualTo(Errors.NONE);
        assertThat(store.all()).isEmpty();
        assertThat(open().all()).isEmpty();
    }

    // --- sweep ------------------------------------------------------------------------------

    @Test
    void expiredTokensAreListedUntilTheCheckIntervalPassesThenDropped() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created expiring = create(store, ALICE, List.of(), 0);

        now.set(T0 + EXPIRY_TIME + 1);
        assertThat(store.all()).as("expired, not swept yet").containsExactly(expiring.token());
        assertThat(store.renew(expiring.hmac(), ALICE, 0).join().error()).isEqualTo(Errors.DELEGATION_TOKEN_EXPIRED);
        assertThat(fileText()).contains(expiring.token().tokenId());

        now.set(T0 + CHECK_INTERVAL - 1);
        DelegationTokens.Created fresh = create(store, BOB, List.of(), 0);
        assertThat(store.all()).as("one millisecond before the first sweep").hasSize(2);

        now.set(T0 + CHECK_INTERVAL);
        assertThat(store.all()).as("swept; the unexpired one stays").containsExactly(fresh.token());
        assertThat(fileText()).doesNotContain(expiring.token().tokenId()).contains(fresh.token().tokenId());
        assertThat(store.renew(expiring.hmac(), ALICE, 0).join().error()).isEqualTo(Errors.DELEGATION_TOKEN_NOT_FOUND);
        assertThat(open().all()).containsExactly(fresh.token());
    }

    @Test
    void theNextSweepComesOneIntervalAfterTheLast() throws Exception {
        DelegationTokens store = open();
        now.set(T0 + CHECK_INTERVAL);
        assertThat(store.all()).isEmpty(); // the first sweep, with nothing to drop
        DelegationTokens.Created c = create(store, ALICE, List.of(), 0);
        now.set(T0 + CHECK_INTERVAL + EXPIRY_TIME + 1);
        assertThat(store.all()).hasSize(1);
        now.set(T0 + 2 * CHECK_INTERVAL - 1);
        assertThat(store.all()).as("the interval counts from the last sweep").hasSize(1);
        now.set(T0 + 2 * CHECK_INTERVAL);
        assertThat(store.all()).isEmpty();
        assertThat(store.login(c.token().tokenId(), ScramMechanism.SCRAM_SHA_256)).isNull();
    }

    @Test
    void anyRequestSweepsNotOnlyDescribe() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created expiring = create(store, ALICE, List.of(), 0);
        now.set(T0 + CHECK_INTERVAL);
        DelegationTokens.Created fresh = create(store, ALICE, List.of(), 0);
        assertThat(fileText()).as("the creation swept first").doesNotContain(expiring.token().tokenId())
                .contains(fresh.token().tokenId());
    }

    // --- durability -------------------------------------------------------------------------

    @Test
    void tokensSurviveAReopenWithOddPrincipalsAndAnyNumberOfRenewers() throws Exception {
        DelegationTokens store = open();
        String odd = "User:a b;c=d,e\u00e9 \u2603-";
        DelegationToken none = store.create(odd, "User:-", List.of(), 0).join().token();
        now.addAndGet(7);
        DelegationToken several = store.create("User:x y", odd,
                List.of("User:r1", "User:;", "User:-", "User:with space", odd), 5000).join().token();
        now.addAndGet(7);
        DelegationToken one = store.create(ALICE, ALICE, List.of("User:"), 0).join().token();

        DelegationTokens reopened = open();
        assertThat(reopened.all()).containsExactlyInAnyOrder(none, several, one);
        DelegationToken back = reopened.all().stream().filter(t -> t.tokenId().equals(several.tokenId()))
                .findFirst().orElseThrow();
        assertThat(back.renewers()).as("in their order").containsExactly("User:r1", "User:;", "User:-",
                "User:with space", odd);
        assertThat(back.requester()).isEqualTo(odd);
        assertThat(fileText()).as("principals are not written as they are").doesNotContain("with space");
    }

    @Test
    void aReopenedStoreWithTheSameSecretKnowsTheTokensByTheirHmac() throws Exception {
        DelegationTokens.Created c = create(open(), ALICE, List.of(BOB), 0);
        assertThat(fileText()).as("no secret is written").doesNotContain(Base64.getEncoder().encodeToString(c.hmac()));

        DelegationTokens reopened = open();
        assertThat(reopened.hmac(c.token().tokenId())).isEqualTo(c.hmac());
        now.addAndGet(1);
        assertThat(reopened.renew(c.hmac(), BOB, 0).join()).isEqualTo(new DelegationTokens.Changed(Errors.NONE,
                T0 + 1 + EXPIRY_TIME));
        assertThat(reopened.login(c.token().tokenId(), ScramMechanism.SCRAM_SHA_512)).isNotNull();

        DelegationTokens otherKey = open("another secret");
        assertThat(otherKey.hmac(c.token().tokenId())).isNotEqualTo(c.hmac());
        assertThat(otherKey.renew(c.hmac(), ALICE, 0).join().error()).as("the old HMAC means nothing under another key")
                .isEqualTo(Errors.DELEGATION_TOKEN_NOT_FOUND);
    }

    @Test
    void aStoreWithoutADirectoryKeepsTokensInMemory() throws Exception {
        DelegationTokens store = DelegationTokens.open(null, settings(SECRET), now::get);
        DelegationTokens.Created c = create(store, ALICE, List.of(), 0);
        assertThat(store.all()).containsExactly(c.token());
        assertThat(store.expire(c.hmac(), ALICE, -1).join().error()).isEqualTo(Errors.NONE);
        assertThat(store.all()).isEmpty();
        assertThat(dir.resolve(DelegationTokens.FILE_NAME)).doesNotExist();
    }

    // --- login ------------------------------------------------------------------------------

    @Test
    void aKnownTokenLogsInAsItsOwnerWithACredentialOfItsHmac() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = store.create(BOB, ALICE, List.of(), 0).join();
        String password = Base64.getEncoder().encodeToString(c.hmac());
        for (ScramMechanism m : ScramMechanism.values()) {
            DelegationTokens.Login login = store.login(c.token().tokenId(), m);
            assertThat(login).isNotNull();
            assertThat(login.owner()).isEqualTo(BOB);
            assertThat(login.expiresAtMs()).isEqualTo(T0 + EXPIRY_TIME);
            ScramCredential cred = login.credential();
            assertThat(cred.iterations()).isGreaterThanOrEqualTo(ScramMechanism.MIN_ITERATIONS);
            // the stored key is the one a client holding the HMAC (base64) as its password derives
            ScramCredential fromPassword = m.credential(cred.salt(),
                    m.saltedPassword(password, cred.salt(), cred.iterations()), cred.iterations());
            assertThat(cred.storedKey()).isEqualTo(fromPassword.storedKey());
            assertThat(cred.serverKey()).isEqualTo(fromPassword.serverKey());
            assertThat(cred.storedKey()).hasSize(m.hashLength());
        }
    }

    @Test
    void aLoginExpiresWithItsRenewalsAndNeverBeyondTheMaximum() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = create(store, ALICE, List.of(), EXPIRY_TIME + 500);
        String id = c.token().tokenId();
        now.set(T0 + 400);
        store.renew(c.hmac(), ALICE, 300).join();
        assertThat(store.login(id, ScramMechanism.SCRAM_SHA_256).expiresAtMs()).isEqualTo(T0 + 700);
        now.set(T0 + 700);
        assertThat(store.login(id, ScramMechanism.SCRAM_SHA_256)).as("at its expiry, inclusive").isNotNull();
        store.renew(c.hmac(), ALICE, EXPIRY_TIME).join();
        assertThat(store.login(id, ScramMechanism.SCRAM_SHA_256).expiresAtMs()).isEqualTo(T0 + EXPIRY_TIME + 500);
    }

    @Test
    void unknownExpiredAndRemovedTokensDoNotLogIn() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created expiring = create(store, ALICE, List.of(), 0);
        DelegationTokens.Created removed = create(store, ALICE, List.of(), 0);
        assertThat(store.login("no-such-token", ScramMechanism.SCRAM_SHA_256)).isNull();
        assertThat(store.login(removed.token().tokenId(), ScramMechanism.SCRAM_SHA_256)).isNotNull();

        assertThat(store.expire(removed.hmac(), ALICE, -1).join().error()).isEqualTo(Errors.NONE);
        assertThat(store.login(removed.token().tokenId(), ScramMechanism.SCRAM_SHA_256)).isNull();

        now.set(T0 + EXPIRY_TIME + 1);
        assertThat(store.all()).as("still listed").extracting(DelegationToken::tokenId)
                .containsExactly(expiring.token().tokenId());
        assertThat(store.login(expiring.token().tokenId(), ScramMechanism.SCRAM_SHA_512))
                .as("refused at once, before the sweep").isNull();
    }

    @Test
    void aTokenExpiredByRequestNoLongerLogsIn() throws Exception {
        DelegationTokens store = open();
        DelegationTokens.Created c = create(store, ALICE, List.of(), 0);
        now.set(T0 + 10);
        assertThat(store.expire(c.hmac(), ALICE, 0).join().error()).isEqualTo(Errors.NONE);
        assertThat(store.login(c.token().tokenId(), ScramMechanism.SCRAM_SHA_256)).isNotNull();
        now.set(T0 + 11);
        assertThat(store.login(c.token().tokenId(), ScramMechanism.SCRAM_SHA_256)).isNull();
    }

    // --- cluster mode: changes through two nodes ---------------------------------------------

    /**
     * A stand-in for the cluster's metadata log shared by nodes: it holds the tokens as the image
     * does, under the image's rules (a new expiry applies only to a token held, within its
     * maximum), and keeps each change pending until the test applies it, in the order it picks.
     * Once a change applies, every node is given the tokens, then the change completes.
     */
    private static final class OrderedLog implements SecurityMetadataLog {
        final Map<String, DelegationToken> tokens = new TreeMap<>();
        private final List<DelegationTokens> nodes = new ArrayList<>();
        private final List<Runnable> pending = new ArrayList<>();

        DelegationTokens node(LongSupplier clock) throws Exception {
            DelegationTokens n = DelegationTokens.open(null, settings(SECRET), clock);
            n.keptIn(CompletableFuture.completedFuture(this));
            nodes.add(n);
            return n;
        }

        int pending() {
            return pending.size();
        }

        /** Applies the change that is {@code index} in the order the changes were made, of those still pending. */
        void apply(int index) {
            pending.remove(index).run();
        }

        @Override
        public CompletableFuture<Set<String>> changeTokens(List<DelegationToken> created, Map<String, Long> newExpiries,
                List<String> removed) {
            CompletableFuture<Set<String>> done = new CompletableFuture<>();
            pending.add(() -> {
                created.forEach(t -> tokens.put(t.tokenId(), t));
                Set<String> missed = new HashSet<>();
                newExpiries.forEach((id, expiry) -> {
                    DelegationToken t = tokens.get(id);
                    if (t == null || expiry > t.maxTimestampMs()) {
                        missed.add(id);
                    } else {
                        tokens.put(id, t.withExpiry(expiry));
                    }
                });
                removed.forEach(tokens::remove);
                nodes.forEach(n -> n.replaceAll(tokens.values()));
                done.complete(missed);
            });
            return done;
        }

        @Override
        public CompletableFuture<Void> addAcls(List<Acl> acls) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> catchUp() {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<List<Boolean>> removeAcls(List<Acl> acls) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> changeCredentials(List<ScramCredentials.Change> changes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public CompletableFuture<Void> changeQuotas(List<ClientQuotaStore.Change> changes) {
            throw new UnsupportedOperationException();
        }
    }

    private DelegationTokens.Created createThrough(OrderedLog log, DelegationTokens node) {
        CompletableFuture<DelegationTokens.Created> creating = node.create(ALICE, ALICE, List.of(BOB), 0);
        assertThat(creating).as("answered once the log applied it").isNotDone();
        log.apply(log.pending() - 1);
        DelegationTokens.Created c = creating.join();
        assertThat(c.error()).isEqualTo(Errors.NONE);
        return c;
    }

    @Test
    void aRenewalOrANewExpiryThatReachesTheLogAfterTheTokensRemovalDoesNotBringItBack() throws Exception {
        OrderedLog log = new OrderedLog();
        DelegationTokens nodeA = log.node(now::get);
        DelegationTokens nodeB = log.node(now::get);
        DelegationTokens.Created renewed = createThrough(log, nodeA);
        DelegationTokens.Created expired = createThrough(log, nodeB);
        assertThat(nodeB.all()).containsExactlyInAnyOrder(renewed.token(), expired.token());
        now.addAndGet(100);

        // node A checks the tokens it holds and sends a renewal and a new expiry; node B removes
        // both tokens meanwhile, and its removals are applied first
        CompletableFuture<DelegationTokens.Changed> renewal = nodeA.renew(renewed.hmac(), BOB, 500);
        CompletableFuture<DelegationTokens.Changed> expiry = nodeA.expire(expired.hmac(), ALICE, 5_000);
        CompletableFuture<DelegationTokens.Changed> removal1 = nodeB.expire(renewed.hmac(), ALICE, -1);
        CompletableFuture<DelegationTokens.Changed> removal2 = nodeB.expire(expired.hmac(), BOB, -1);
        log.apply(2);
        log.apply(2);
        assertThat(removal1.join()).isEqualTo(new DelegationTokens.Changed(Errors.NONE, T0 + 100));
        assertThat(removal2.join().error()).isEqualTo(Errors.NONE);
        assertThat(renewal).isNotDone();
        log.apply(0);
        log.apply(0);

        assertThat(renewal.join()).as("the renewal found no token")
                .isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_NOT_FOUND, -1));
        assertThat(expiry.join()).isEqualTo(new DelegationTokens.Changed(Errors.DELEGATION_TOKEN_NOT_FOUND, -1));
        assertThat(log.tokens).isEmpty();
        assertThat(nodeA.all()).isEmpty();
        assertThat(nodeB.all()).isEmpty();
        assertThat(nodeA.login(renewed.token().tokenId(), ScramMechanism.SCRAM_SHA_256)).isNull();
        assertThat(nodeB.login(renewed.token().tokenId(), ScramMechanism.SCRAM_SHA_256)).isNull();
    }

    @Test
    void aRenewalAppliedBeforeTheRemovalIsAnsweredAndTheRemovalStillWins() throws Exception {
        OrderedLog log = new OrderedLog();
        DelegationTokens nodeA = log.node(now::get);
        DelegationTokens nodeB = log.node(now::get);
        DelegationTokens.Created c = createThrough(log, nodeA);
        now.addAndGet(100);

        CompletableFuture<DelegationTokens.Changed> renewal = nodeA.renew(c.hmac(), BOB, 500);
        CompletableFuture<DelegationTokens.Changed> removal = nodeB.expire(c.hmac(), ALICE, -1);
        log.apply(0);
        assertThat(renewal.join()).isEqualTo(new DelegationTokens.Changed(Errors.NONE, T0 + 600));
        assertThat(nodeB.all()).as("every node has the renewal").containsExactly(c.token().withExpiry(T0 + 600));
        assertThat(log.tokens.get(c.token().tokenId())).as("only the expiry moved")
                .isEqualTo(c.token().withExpiry(T0 + 600));
        log.apply(0);

        assertThat(removal.join().error()).isEqualTo(Errors.NONE);
        assertThat(log.tokens).isEmpty();
        assertThat(nodeA.all()).isEmpty();
        assertThat(nodeB.all()).isEmpty();
    }

    // --- settings ---------------------------------------------------------------------------

    @Test
    void settingsHaveKafkasDefaults() {
        DelegationTokens.Settings s = DelegationTokens.Settings.of(Map.of(DelegationTokens.SECRET_KEY, "k"));
        assertThat(s).isEqualTo(new DelegationTokens.Settings("k", 7 * 24 * 3_600_000L, 24 * 3_600_000L, 3_600_000L));
        assertThat(DelegationTokens.Settings.disabled().secretKey()).isNull();
        assertThat(DelegationTokens.Settings.of(Map.of(DelegationTokens.SECRET_KEY, "k",
                DelegationTokens.MAX_LIFETIME_MS, " 5 ", DelegationTokens.EXPIRY_TIME_MS, "6",
                DelegationTokens.EXPIRY_CHECK_INTERVAL_MS, "7")))
                .isEqualTo(new DelegationTokens.Settings("k", 5, 6, 7));
    }

    @Test
    void anEmptySecretKeyIsRefused() {
        assertThatThrownBy(() -> DelegationTokens.Settings.of(Map.of(DelegationTokens.SECRET_KEY, "")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(DelegationTokens.SECRET_KEY);
        assertThatThrownBy(() -> new DelegationTokens.Settings("", 1, 1, 1))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void nonPositiveDurationsAreRefused() {
        for (String key : List.of(DelegationTokens.MAX_LIFETIME_MS, DelegationTokens.EXPIRY_TIME_MS,
                DelegationTokens.EXPIRY_CHECK_INTERVAL_MS)) {
            for (String value : List.of("0", "-1")) {
                assertThatThrownBy(() -> DelegationTokens.Settings.of(Map.of(DelegationTokens.SECRET_KEY, "k", key,
                        value))).as("%s=%s", key, value).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining(key);
            }
        }
        assertThatThrownBy(() -> new DelegationTokens.Settings("k", 0, 1, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DelegationTokens.Settings("k", 1, 0, 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new DelegationTokens.Settings("k", 1, 1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(new DelegationTokens.Settings(null, 1, 1, 1).secretKey()).isNull();
    }

    @Test
    void aNonNumericDurationIsRefusedNamingItsKey() {
        for (String key : List.of(DelegationTokens.MAX_LIFETIME_MS, DelegationTokens.EXPIRY_TIME_MS,
                DelegationTokens.EXPIRY_CHECK_INTERVAL_MS)) {
            assertThatThrownBy(() -> DelegationTokens.Settings.of(Map.of(DelegationTokens.SECRET_KEY, "k", key,
                    "one day"))).as(key).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(key)
                    .hasMessageContaining("one day");
        }
    }
}
