package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** What {@code allot budget show} prints for the tree the server answers with. */
class BudgetShowRenderTest {
    private static String rendered(String json) throws Exception {
        StringWriter s = new StringWriter();
        try (PrintWriter out = new PrintWriter(s)) {
            new BudgetCommand.Show().render(new ObjectMapper().readTree(json), out);
        }
        return s.toString();
    }

    @Test
    void aHugeShareIsItsFractionOfItsParentNotInfinity() throws Exception {
        // given a share the server accepts (any finite number >= 0) so large that 100 x share overflows
        String tree = "{\"allocations\": ["
                + "{\"path\": \"lab\", \"parent\": null, \"share\": 1, \"managers\": [], \"members\": []},"
                + "{\"path\": \"lab/big\", \"parent\": \"lab\", \"share\": 1e308, \"managers\": [], \"members\": []},"
                + "{\"path\": \"lab/small\", \"parent\": \"lab\", \"share\": 1, \"managers\": [], \"members\": []}]}";

        // then it is 100% of its parent: it printed "Infinity%"
        assertThat(rendered(tree)).isEqualTo("""
                ALLOCATION  SHARE    OF PARENT  MANAGERS  MEMBERS
                lab         1        100%       -         -
                  big       1.0E308  100%       -         -
                  small     1        0%         -         -
                """);
    }
}
