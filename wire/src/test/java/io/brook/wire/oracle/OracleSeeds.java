package io.brook.wire.oracle;

/**
 * Seeds for the random messages of the oracle and the fuzzer. Every case derives its seed from the
 * base seed and its own name, so a failure names a seed that reproduces it in isolation; run with
 * {@code -Doracle.seed=<n>} to explore different inputs.
 */
final class OracleSeeds {

    static final long BASE_SEED = Long.getLong("oracle.seed", 0xB200C_0A5EEDL);

    private OracleSeeds() {
    }

    static long seed(String caseName) {
        return BASE_SEED * 31 + caseName.hashCode();
    }
}
