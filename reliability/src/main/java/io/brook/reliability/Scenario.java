package io.brook.reliability;

/** One reliability scenario at one size. */
interface Scenario {

    /** Short name, used by {@code --only}: crash-loop, txn-power-cut, disk-full and so on ({@link ReliabilityRunner#scenarios}). */
    String name();

    /** The size it runs at, in words, for the report. */
    String size();

    /** Runs it, adding checks and figures to {@code result} as it goes; an exception ends it as FAIL. */
    void run(Env env, ScenarioResult result) throws Exception;

    /** Runs {@code scenario} and returns its result; never throws. */
    static ScenarioResult execute(Scenario scenario, Env env) {
        ScenarioResult result = new ScenarioResult(scenario.name(), scenario.size());
        long start = System.nanoTime();
        env.progress().note(scenario.name() + ": " + scenario.size());
        env.progress().step(scenario.name());
        try {
            scenario.run(env, result);
        } catch (Throwable t) {
            result.error(t);
            env.progress().note(scenario.name() + " ended early: " + t);
        } finally {
            result.seconds((System.nanoTime() - start) / 1e9);
        }
        env.progress().note(scenario.name() + ": " + result.status());
        return result;
    }
}
