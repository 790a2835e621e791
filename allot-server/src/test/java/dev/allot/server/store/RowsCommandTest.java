package dev.allot.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A stored command read back ({@link Rows#command}): its quick path and Jackson agree on every form. */
class RowsCommandTest {
    @Test
    void everyCommandReadsBackAsJacksonReadsIt() {
        List<List<String>> commands = List.of(List.of(), List.of(""), List.of("train"), List.of("a", "b"),
                List.of("python", "-c", "print(\"hi\")"), List.of("a\",\"b"), List.of("x,y", "", "z"),
                List.of("back\\slash", "tab\there"), List.of("ünï", "日本"), List.of("\"", ","), List.of("[", "]"));
        for (List<String> command : commands) {
            String stored = Rows.toJson(command);
            assertThat(Rows.command(stored)).as(stored).containsExactlyElementsOf(command);
        }
        // forms the store does not write itself go to Jackson and read as it reads them
        for (String text : List.of("[ \"a\" , \"b\" ]", "[\"a\", \"b\"]", "[\"a\",\"b\" ]", "[\"a\",null,\"b\"]")) {
            assertThat(Rows.command(text)).as(text).isEqualTo(Rows.fromJson(text, new TypeReference<List<String>>() {
            }));
        }
    }
}
