package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.brook.wire.message.HeartbeatRequest;
import io.brook.wire.message.HeartbeatResponse;
import io.brook.wire.message.JoinGroupResponse;
import io.brook.wire.message.LeaveGroupRequest;
import io.brook.wire.message.OffsetCommitResponse;
import io.brook.wire.message.SyncGroupResponse;
import io.brook.wire.protocol.ApiMessage;
import io.brook.wire.protocol.Errors;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

/**
 * Random clients (dynamic and static, several protocol choices) join, sync, heartbeat, commit,
 * leave and go silent while time moves. After every step the group must be consistent, no
 * request or timer may fail with an exception, and once everyone is silent long enough every
 * parked request must have been answered and the group must be Empty.
 */
class GroupStateMachineFuzzTest {

    private static final int CLIENTS = 5;
    private static final String[][] PROTOCOLS = {{"range"}, {"range", "roundrobin"}, {"roundrobin", "range"}};

    /** What one client process knows: its member id, the generation it was told, its instance id. */
    private static final class Client {
        String memberId = "";
        int generation = -1;
        final String instanceId;
        int protocols;

        Client(String instanceId) {
            this.instanceId = instanceId;
        }
    }

    record Op(int kind, int client, int arg) {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        return Arbitraries.integers().between(0, 7).flatMap(kind -> Arbitraries.integers().between(0, CLIENTS - 1)
                .flatMap(client -> Arbitraries.integers().between(0, 20_000).map(arg -> new Op(kind, client, arg))))
                .list().ofMinSize(5).ofMaxSize(60);
    }

    @Property(tries = 300, seed = "20261130")
    void shouldStayConsistentUnderRandomClients(@ForAll("ops") @Size(max = 60) List<Op> ops) {
        GroupHarness h = new GroupHarness(GroupHarness.config().withInitialRebalanceDelayMs(1_000));
        Client[] clients = new Client[CLIENTS];
        for (int i = 0; i < CLIENTS; i++) clients[i] = new Client(i % 2 == 0 ? "inst-" + i : null);
        List<CompletableFuture<? extends ApiMessage>> pending = new ArrayList<>();
        Map<CompletableFuture<JoinGroupResponse>, Client> joins = new HashMap<>();

        for (Op op : ops) {
            Client c = clients[op.client()];
            switch (op.kind()) {
                case 0, 1 -> { // join (or rejoin), possibly with other protocols
                    if (op.kind() == 1) c.protocols = op.arg() % PROTOCOLS.length;
                    CompletableFuture<JoinGroupResponse> f = h.join(
                            GroupHarness.joinRequest("g", c.memberId, c.instanceId, PROTOCOLS[c.protocols]), 9);
                    joins.put(f, c);
                    pending.add(f);
                }
                case 2 -> { // sync; a leader hands everyone an assignment
                    CompletableFuture<SyncGroupResponse> f = h.syncStatic("g", c.generation, c.memberId, c.instanceId,
                            c.memberId, "a-" + op.arg());
                    pending.add(f);
                }
                case 3 -> {
                    CompletableFuture<HeartbeatResponse> f = h.coordinator.heartbeat(new HeartbeatRequest().groupId("g")
                            .generationId(c.generation).memberId(c.memberId).groupInstanceId(c.instanceId), (short) 4);
                    h.run();
                    pending.add(f);
                }
                case 4 -> {
                    CompletableFuture<OffsetCommitResponse> f = h.commit("g", c.generation, c.memberId, c.instanceId, 8,
                            "t", op.client(), op.arg(), "");
                    pending.add(f);
                }
                case 5 -> {
                    h.leaveBatch("g", new LeaveGroupRequest.MemberIdentity().memberId(c.memberId).groupInstanceId(c.instanceId));
                }
                case 6 -> { // the client process restarts: it forgets its member id
                    c.memberId = "";
                    c.generation = -1;
                }
                default -> h.advance(op.arg());
            }
            absorbJoinAnswers(joins);
            checkInvariants(h);
        }
        // Everyone goes silent: sessions, rebalance and pending-sync timeouts must clean up.
        for (int i = 0; i < 20; i++) h.advance(60_000);
        checkInvariants(h);
        assertThat(pending).allMatch(CompletableFuture::isDone);
        ClassicGroup g = h.group("g");
        if (g != null) {
            assertThat(g.members).isEmpty();
            assertThat(g.state).isIn(GroupState.EMPTY, GroupState.DEAD);
        }
        assertThat(h.coordinator.taskFailures()).isZero();
    }

    private static void absorbJoinAnswers(Map<CompletableFuture<JoinGroupResponse>, Client> joins) {
        joins.entrySet().removeIf(e -> {
            if (!e.getKey().isDone()) return false;
            JoinGroupResponse r = e.getKey().join();
            Client c = e.getValue();
            if (r.errorCode() == Errors.NONE.code() || r.errorCode() == Errors.MEMBER_ID_REQUIRED.code()) {
                c.memberId = r.memberId();
                c.generation = r.generationId();
            }
            return true;
        });
    }

    private static void checkInvariants(GroupHarness h) {
        assertThat(h.coordinator.taskFailures()).as("exceptions in the coordinator").isZero();
        ClassicGroup g = h.group("g");
        if (g == null) return;
        switch (g.state) {
            case EMPTY -> assertThat(g.members).isEmpty();
            case COMPLETING_REBALANCE, STABLE -> {
                assertThat(g.members).isNotEmpty();
                assertThat(g.members).containsKey(g.leaderId);
                assertThat(g.protocolName).isNotNull();
                for (GroupMember m : g.members.values()) {
                    assertThat(m.supports(g.protocolName)).isTrue();
                    assertThat(m.awaitingJoin).isNull();
                }
            }
            default -> {
            }
        }
        if (g.state != GroupState.STABLE) {
            for (GroupMember m : g.members.values()) {
                if (g.state != GroupState.COMPLETING_REBALANCE) assertThat(m.awaitingSync).isNull();
            }
        }
        if (g.leaderId != null) assertThat(g.members).containsKey(g.leaderId);
        assertThat(g.members.keySet()).containsAll(g.pendingSyncMembers);
        for (Map.Entry<String, String> e : g.staticMembers.entrySet()) {
            assertThat(g.members).containsKey(e.getValue());
            assertThat(g.members.get(e.getValue()).instanceId).isEqualTo(e.getKey());
        }
        // the counts a join reads instead of walking the members match the members
        assertThat(g.numAwaitingJoin()).isEqualTo((int) g.members.values().stream().filter(m -> m.awaitingJoin != null).count());
        Set<String> offered = new HashSet<>();
        g.members.values().forEach(m -> m.protocols.forEach(p -> offered.add(p.name())));
        for (String name : offered) {
            boolean all = g.members.values().stream().allMatch(m -> m.supports(name));
            assertThat(g.supportsProtocols(g.protocolType, List.of(new Protocol(name, new byte[0])))).isEqualTo(all);
        }
        for (GroupMember m : g.members.values()) {
            assertThat(m.memberId).isNotEmpty();
            if (m.instanceId != null) assertThat(g.staticMembers.get(m.instanceId)).isEqualTo(m.memberId);
            assertThat(g.pendingMembers).doesNotContain(m.memberId);
        }
    }
}
