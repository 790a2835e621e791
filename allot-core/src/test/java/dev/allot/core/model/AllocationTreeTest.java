package dev.allot.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class AllocationTreeTest {
    private static AllocationTree lab() {
        return AllocationTree.builder("lab")
                .child("nlp", 60).leaf("pretrain", 3).leaf("posttrain", 1).up()
                .child("vision", 40).leaf("video", 1).up()
                .build();
    }

    @Test
    void theEntitlementOfALeafIsTheProductOfNormalisedSharesDownItsPath() {
        AllocationTree t = lab();
        assertThat(t.leafNames()).containsExactly("pretrain", "posttrain", "video");
        assertThat(t.leafEntitlement(t.leaf("pretrain").orElseThrow())).isCloseTo(0.45, within(1e-12));
        assertThat(t.leafEntitlement(t.leaf("posttrain").orElseThrow())).isCloseTo(0.15, within(1e-12));
        assertThat(t.leafEntitlement(t.leaf("video").orElseThrow())).isCloseTo(0.40, within(1e-12));
        assertThat(t.normalisedShare(t.node("nlp").orElseThrow())).isCloseTo(0.6, within(1e-12));
    }

    @Test
    void nodesAreInPreorderWithPathsAndDepths() {
        AllocationTree t = lab();
        assertThat(t.name(0)).isEqualTo("lab");
        assertThat(t.path(t.node("posttrain").orElseThrow())).isEqualTo("lab/nlp/posttrain");
        assertThat(t.depth(t.node("video").orElseThrow())).isEqualTo(2);
        assertThat(t.isWithin(t.node("video").orElseThrow(), t.node("vision").orElseThrow())).isTrue();
        assertThat(t.isWithin(t.node("video").orElseThrow(), t.node("nlp").orElseThrow())).isFalse();
    }

    @Test
    void innerNodesAreNotLeaves() {
        assertThat(lab().leaf("nlp")).isEmpty();
    }

    @Test
    void namesMustBeUnique() {
        assertThatThrownBy(() -> AllocationTree.builder("lab").child("a", 1).leaf("x", 1).up().child("b", 1).leaf("x", 1).build())
                .hasMessageContaining("'x' is used twice");
    }

    @Test
    void siblingsNeedAPositiveShareBetweenThem() {
        assertThatThrownBy(() -> AllocationTree.builder("lab").leaf("a", 0).leaf("b", 0).build())
                .hasMessageContaining("expected at least one positive share among the children of 'lab', got shares summing to 0");
        assertThatThrownBy(() -> AllocationTree.builder("lab").leaf("a", -1))
                .hasMessageContaining("field 'share': expected a finite number >= 0");
    }
}
