package io.brook.reliability;

import java.util.List;
import java.util.Random;

/**
 * What one fuzzing connection does: the valid frames it sends first, unchanged (to bring the
 * connection into a state worth attacking, such as half-way through a SASL exchange), and the
 * seed frames it then mutates ({@link FrameMutator}). {@link FuzzClient} asks for a new plan for
 * each connection it opens.
 */
interface FuzzPlan {

    /** One connection's frames: {@code prologue} as they are, then mutations of {@code seeds}. */
    record Connection(List<byte[]> prologue, List<byte[]> seeds) {
        public Connection {
            prologue = List.copyOf(prologue);
            seeds = List.copyOf(seeds);
        }
    }

    Connection next(Random random);

    /** Every connection mutates {@code seeds} from its first frame on (the wire fuzzer's plan). */
    static FuzzPlan mutating(List<byte[]> seeds) {
        Connection only = new Connection(List.of(), seeds);
        return random -> only;
    }
}
