package io.brook.reliability;

import java.util.List;

/**
 * The checks the crash-loop and power-cut scenarios make of what survived their restarts,
 * reported the same way by each: the producers' acknowledged records read back, the groups'
 * committed offsets, and the records consumers had been given.
 */
final class RestartChecks {
    private static final int SHOWN = 5;

    private RestartChecks() {
    }

    /** Every acknowledged record read back once, at its acknowledged offset, in its producer's order. */
    static void acknowledgedRecords(ScenarioResult result, ReadBack.Verification v) {
        String examples = v.examples().isEmpty() ? "" : "; e.g. " + String.join("; ", v.examples());
        result.check("every acknowledged record present", v.missing() == 0, v.missing() + " of " + v.acked()
                + " acknowledged records missing (" + v.records() + " records read)" + examples);
        result.check("no acknowledged record duplicated", v.duplicatedAcked() == 0, v.duplicatedAcked()
                + " acknowledged ids found more than once" + examples);
        result.check("acknowledged offsets and per-partition order kept",
                v.offsetMismatches() == 0 && v.orderViolations() == 0, v.offsetMismatches()
                        + " records at another offset than acknowledged, " + v.orderViolations()
                        + " out of their producer's order within a partition" + examples);
    }

    /**
     * No committed offset went back ({@code regressions}, one line each, checked {@code when}), and
     * every record a consumer was given before a crash was still in the log after it ({@code lostReads}).
     */
    static void commitsAndReads(ScenarioResult result, List<String> regressions, String when, List<String> lostReads) {
        result.check("committed offsets never went back", regressions.isEmpty(),
                regressions.isEmpty() ? "checked " + when
                        : regressions.size() + " regressions: " + String.join("; ",
                                regressions.subList(0, Math.min(SHOWN, regressions.size()))));
        result.check("every record consumed before a kill still there after it", lostReads.isEmpty(),
                lostReads.isEmpty() ? "the log end offsets after each restart past every offset consumed before"
                        : lostReads.size() + " partitions: " + String.join("; ",
                                lostReads.subList(0, Math.min(SHOWN, lostReads.size()))));
    }
}
