package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {

    @Test
    void statusFollowsChecksSkipsAndErrors() {
        ScenarioResult ok = new ScenarioResult("a", "small").check("c", true, "fine");
        ScenarioResult bad = new ScenarioResult("b", "small").check("c", true, "fine").check("d", false, "lost");
        ScenarioResult skipped = new ScenarioResult("c", "small");
        skipped.skip("not root");
        ScenarioResult broken = new ScenarioResult("d", "small");
        broken.error(new IllegalStateException("boom"));
        assertThat(List.of(ok, bad, skipped, broken)).extracting(ScenarioResult::status).containsExactly(
                ScenarioResult.Status.PASS, ScenarioResult.Status.FAIL, ScenarioResult.Status.SKIP, ScenarioResult.Status.FAIL);
    }

    @Test
    void csvQuotesWhatNeedsQuotingAndMarkdownEscapesPipes() {
        ScenarioResult r = new ScenarioResult("s", "size").figure("answers", "{A=1, B=2}").figure("time", 1.5, "ms")
                .check("a|b", false, "x \"y\"");
        assertThat(Report.csv(List.of(r))).contains("s,figure,answers,\"{A=1, B=2}\",\n", "s,figure,time,1.5,ms\n",
                "s,check,a|b,fail,\n");
        assertThat(Report.markdown("header", List.of(r))).contains("| a\\|b | **FAIL** | x \"y\" |");
    }

    @Test
    void numbersAreShortAndExact() {
        assertThat(ScenarioResult.number(42)).isEqualTo("42");
        assertThat(ScenarioResult.number(0.12345)).isEqualTo("0.123");
        assertThat(ScenarioResult.number(1234.567)).isEqualTo("1234.6");
    }
}
