package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

class FrameMutatorTest {
    private static final List<byte[]> SEEDS = FrameCorpus.seeds();

    @Test
    void seedsAreValidFramesOfManyApis() {
        Set<ApiKeys> apis = EnumSet.noneOf(ApiKeys.class);
        for (byte[] seed : SEEDS) {
            ByteBuffer buf = ByteBuffer.wrap(seed);
            assertThat(buf.getInt()).isEqualTo(seed.length - 4);
            apis.add(RequestHeader.parse(buf).apiKey());
        }
        assertThat(apis).hasSize(19).doesNotContain(ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS,
                ApiKeys.DELETE_RECORDS, ApiKeys.DELETE_GROUPS, ApiKeys.ALTER_CONFIGS);
        assertThat(SEEDS.size()).isGreaterThan(150);
    }

    @Test
    void sameSeedSameFrames() {
        FrameMutator a = new FrameMutator(SEEDS, new Random(9));
        FrameMutator b = new FrameMutator(SEEDS, new Random(9));
        for (int i = 0; i < 1000; i++) {
            assertThat(a.next().bytes()).isEqualTo(b.next().bytes());
        }
    }

    @Test
    void everyKindIsMadeAndOnlyLyingOrCutFramesEndTheConnection() {
        FrameMutator m = new FrameMutator(SEEDS, new Random(1));
        Set<FrameMutator.Kind> kinds = EnumSet.noneOf(FrameMutator.Kind.class);
        for (int i = 0; i < 5000; i++) {
            FrameMutator.Frame f = m.next();
            kinds.add(f.kind());
            switch (f.kind()) {
                case LYING_SIZE -> {
                    int size = ByteBuffer.wrap(f.bytes()).getInt();
                    assertThat(f.closeAfter()).isEqualTo(size < 0 || size > f.bytes().length - 4);
                }
                case TRUNCATED -> assertThat(f.closeAfter()).isTrue();
                default -> {
                    assertThat(ByteBuffer.wrap(f.bytes()).getInt()).as(f.kind().name()).isEqualTo(f.bytes().length - 4);
                    assertThat(f.closeAfter()).isFalse();
                }
            }
        }
        assertThat(kinds).isEqualTo(EnumSet.allOf(FrameMutator.Kind.class));
    }

    /** Frames with bodies of 0 to 3 bytes (raw SASL tokens can be that short) mutate like any other. */
    @Test
    void shortFramesMutateWithoutFailing() {
        List<byte[]> shortOnes = List.of(new byte[] {0, 0, 0, 0}, new byte[] {0, 0, 0, 1, 7},
                new byte[] {0, 0, 0, 2, 0, 0}, new byte[] {0, 0, 0, 3, 1, 2, 3});
        FrameMutator m = new FrameMutator(shortOnes, new Random(3));
        Set<FrameMutator.Kind> kinds = EnumSet.noneOf(FrameMutator.Kind.class);
        for (int i = 0; i < 5000; i++) {
            kinds.add(m.next().kind());
        }
        assertThat(kinds).isEqualTo(EnumSet.allOf(FrameMutator.Kind.class));
    }

    /** Every connection the SASL fuzzer plans, prologue and seeds, mutates without failing. */
    @Test
    void saslPlansMutateWithoutFailing() {
        SaslFuzzPlan plan = new SaslFuzzPlan("fuzz", "secret");
        Random random = new Random(5);
        for (int c = 0; c < 200; c++) {
            FuzzPlan.Connection connection = plan.next(random);
            FrameMutator m = new FrameMutator(connection.seeds(), random);
            for (int i = 0; i < 200; i++) {
                assertThat(m.next().bytes()).isNotNull();
            }
        }
    }
}
