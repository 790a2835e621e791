package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HostListTest {
    @Test
    void rangesAndSinglesInOneBracketExpandInOrder() {
        assertThat(HostList.expand("n[1-3,7]")).containsExactly("n1", "n2", "n3", "n7");
    }

    @Test
    void zeroPaddingIsKept() {
        assertThat(HostList.expand("gpu-a[08-10]")).containsExactly("gpu-a08", "gpu-a09", "gpu-a10");
    }

    @Test
    void plainNamesAndMixedListsExpand() {
        assertThat(HostList.expand("n1,n2")).containsExactly("n1", "n2");
        assertThat(HostList.expand("n[1-2],gpu-a05,m[3]")).containsExactly("n1", "n2", "gpu-a05", "m3");
        assertThat(HostList.expand("n1")).containsExactly("n1");
    }

    @Test
    void twoBracketsExpandAsACrossProduct() {
        assertThat(HostList.expand("a[1-2]b[3-4]")).containsExactly("a1b3", "a1b4", "a2b3", "a2b4");
        assertThat(HostList.expand("rack[1-2]-n[1]")).containsExactly("rack1-n1", "rack2-n1");
    }

    @Test
    void nothingIsNoHosts() {
        assertThat(HostList.expand("(null)")).isEmpty();
        assertThat(HostList.expand("")).isEmpty();
        assertThat(HostList.expand("  ")).isEmpty();
        assertThat(HostList.expand(null)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"n[1-", "n[3-1]", "n[a]", "n[]", "n[1-x]", "n[-2]", "n1,,n2", "n]1", "n[1-2]]",
            "n[1-2-3]", "n]1[", "a]b[1]c[", "n[1]x]y[",
            "a[1]b[x]", "a[1]b[2"})
    void badListsAreRefusedNamingTheList(String bad) {
        assertThatThrownBy(() -> HostList.expand(bad)).isExactlyInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("host list '" + bad + "'");
    }
}
