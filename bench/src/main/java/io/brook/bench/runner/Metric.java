package io.brook.bench.runner;

/** The figures the runner reports, in the order the table lists them. */
enum Metric {
    RECORDS_PER_S("records/s", true, "%,.0f"),
    MB_PER_S("MB/s", true, "%,.1f"),
    /** Committed transactions per second (transactions workload). */
    TRANSACTIONS_PER_S("transactions/s", true, "%,.1f"),
    P50_MS("p50 ms", false, "%,.2f"),
    P99_MS("p99 ms", false, "%,.2f"),
    P999_MS("p99.9 ms", false, "%,.2f"),
    MAX_MS("max ms", false, "%,.2f"),
    BROKER_CPU_S("broker CPU s", false, "%,.2f"),
    BROKER_CPU_S_PER_GB("broker CPU s/GB", false, "%,.2f"),
    /**
     * The machine's busy CPU outside the runner per GB, from the start of a write workload until
     * {@code sync} returned after it: the broker's own CPU plus the kernel's writeback of what it
     * left dirty (Kafka's page-cache writes are forced later by kernel threads, Brook's durable
     * writes by itself).
     */
    MACHINE_CPU_S_PER_GB("broker+kernel CPU s/GB", false, "%,.2f"),
    /** The runner's own process (producers and consumers) over the same phase: shows which side is the bottleneck. */
    CLIENT_CPU_S("client CPU s", false, "%,.2f"),
    /**
     * The producer's own {@code batch-size-avg} and {@code records-per-request-avg} over a produce
     * workload: a broker that answers sooner gets smaller batches and requests from the same
     * producer, which costs both sides more per record.
     */
    PRODUCER_BATCH_BYTES("producer batch bytes (avg)", true, "%,.0f"),
    PRODUCER_RECORDS_PER_REQUEST("producer records/request (avg)", true, "%,.0f"),
    STARTUP_MS("start-up ms", false, "%,.0f"),
    /** Bytes a client sent per request while tailing many partitions (fetch sessions workload). */
    FETCH_REQUEST_BYTES("bytes/fetch request", false, "%,.0f"),
    FETCHES_PER_S("fetches/s", true, "%,.1f"),
    BROKER_CPU_MS_PER_FETCH("broker CPU ms/fetch", false, "%,.3f"),
    PEAK_RSS_MIB("peak RSS MiB", false, "%,.0f");

    final String label;
    final boolean higherIsBetter;
    private final String format;

    Metric(String label, boolean higherIsBetter, String format) {
        this.label = label;
        this.higherIsBetter = higherIsBetter;
        this.format = format;
    }

    String format(double value) {
        return String.format(java.util.Locale.ROOT, format, value);
    }

    /** Machine-readable column name for the CSV. */
    String key() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
