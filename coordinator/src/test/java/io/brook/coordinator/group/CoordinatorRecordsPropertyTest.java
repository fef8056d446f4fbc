package io.brook.coordinator.group;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

class CoordinatorRecordsPropertyTest {

    @Property(tries = 200, seed = "20261130")
    void shouldRejectEveryTruncationOfAValidGroupValue(@ForAll @IntRange(min = 0, max = 120) int cut) {
        CoordinatorRecords.MemberValue m = new CoordinatorRecords.MemberValue("member", "i", "c", "h", 1, 2,
                List.of(new Protocol("range", new byte[]{1, 2, 3})), new byte[]{4});
        byte[] full = CoordinatorRecords.groupValue(new CoordinatorRecords.GroupValue("consumer", 1, "range", "member", 3, List.of(m)));
        if (cut >= full.length) return;
        byte[] truncated = Arrays.copyOf(full, cut);
        assertThatThrownBy(() -> CoordinatorRecords.readGroupValue(truncated)).isInstanceOf(IllegalArgumentException.class);
    }

}
