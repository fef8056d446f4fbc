package io.brook.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MachineTest {

    @Test
    void freeAndDfRowsGetTheirHeadings() {
        String free = """
                               total        used        free      shared  buff/cache   available
                Mem:            23Gi       3.1Gi        19Gi       8.7Mi       874Mi        20Gi
                Swap:             0B          0B          0B
                """;
        assertThat(Machine.labelled(free, "Mem:")).isEqualTo(
                "total 23Gi, used 3.1Gi, free 19Gi, shared 8.7Mi, buff/cache 874Mi, available 20Gi");
        String df = """
                Filesystem      Size  Used Avail Use% Mounted on
                /dev/vda        252G   23G   80G  22% /
                """;
        assertThat(Machine.labelled(df, "/")).isEqualTo(
                "Filesystem /dev/vda, Size 252G, Used 23G, Avail 80G, Use% 22%, Mounted-on /");
    }
}
