package dev.allot.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.jdbi.v3.core.statement.StatementBuilder;
import org.jdbi.v3.core.statement.StatementContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The prepared statements SQLite's connections keep ({@link StatementCache}). */
class StatementCacheTest {
    @TempDir
    Path dir;

    @Test
    void aStatementGivenBackIsHandedOutAgainForTheSameSqlButNeverTwiceAtOnce() throws Exception {
        try (Handle h = Jdbi.open("jdbc:sqlite:" + dir.resolve("a.db"))) {
            Connection c = h.getConnection();
            StatementContext ctx = h.createQuery("SELECT 1").getContext();
            StatementBuilder b = new StatementCache().createStatementBuilder(c);
            PreparedStatement first = b.create(c, "SELECT 1", ctx);
            PreparedStatement atOnce = b.create(c, "SELECT 1", ctx);
            assertThat(atOnce).isNotSameAs(first);
            b.close(c, "SELECT 1", first);
            b.close(c, "SELECT 1", atOnce);
            assertThat(List.of(b.create(c, "SELECT 1", ctx), b.create(c, "SELECT 1", ctx)))
                    .containsExactlyInAnyOrder(first, atOnce);
            assertThat(b.create(c, "SELECT 2", ctx)).isNotIn(first, atOnce);
            assertThat(new StatementCache().createStatementBuilder(c).create(c, "SELECT 1", ctx))
                    .as("another cache").isNotIn(first, atOnce);
        }
    }

    @Test
    void jdbiGetsTheSameStatementBackForSqlWithNamedParameters() {
        // Jdbi prepares the rendered SQL (":n" becomes "?") and gives the statement back with the SQL as written
        StatementCache cache = new StatementCache();
        Jdbi jdbi = Jdbi.create("jdbc:sqlite:" + dir.resolve("d.db")).setStatementBuilderFactory(cache);
        try (Handle h = jdbi.open()) {
            h.execute("CREATE TABLE t (n INTEGER)");
            long before = cache.prepared();
            for (int i = 0; i < 5; i++) {
                h.createUpdate("INSERT INTO t VALUES (:n)").bind("n", i).execute();
                assertThat(h.createQuery("SELECT COUNT(*) FROM t WHERE n <= :n").bind("n", i).mapTo(Integer.class)
                        .one()).isEqualTo(i + 1);
            }
            assertThat(cache.prepared() - before).as("each SQL prepared once, then handed out again").isEqualTo(2);
        }
    }

    @Test
    void beyondTheLimitTheLeastRecentlyUsedStatementsAreClosed() throws Exception {
        try (Handle h = Jdbi.open("jdbc:sqlite:" + dir.resolve("b.db"))) {
            Connection c = h.getConnection();
            StatementContext ctx = h.createQuery("SELECT 1").getContext();
            StatementBuilder b = new StatementCache().createStatementBuilder(c);
            PreparedStatement oldest = b.create(c, "SELECT 0", ctx);
            b.close(c, "SELECT 0", oldest);
            for (int i = 1; i <= StatementCache.MAX_PER_CONNECTION; i++) {
                b.close(c, "SELECT " + i, b.create(c, "SELECT " + i, ctx));
            }
            assertThat(oldest.isClosed()).isTrue();
            assertThat(b.create(c, "SELECT 0", ctx)).isNotSameAs(oldest);
        }
    }

    @Test
    void aQueryRunInsideTheResultsOfTheSameQueryAndAReadAfterACommitSeeWhatTheyShould() {
        // (a statement that returns a row run as an update, the PRAGMA below, must not stay in progress at rest: the
        // next commit on its connection would be refused)
        String url = "jdbc:sqlite:" + dir.resolve("c.db");
        StatementCache cache = new StatementCache();
        Jdbi writer = Jdbi.create(url).setStatementBuilderFactory(cache);
        writer.useHandle(h -> {
            h.execute("PRAGMA journal_mode = WAL");
            h.execute("CREATE TABLE t (n INTEGER)");
            h.execute("INSERT INTO t VALUES (1), (2), (3)");
        });
        try (Handle reader = Jdbi.create(url).setStatementBuilderFactory(cache).open()) {
            String sql = "SELECT n FROM t WHERE n >= :from ORDER BY n";
            // given a query whose results are walked while the same query runs for each row
            List<String> pairs = reader.inTransaction(h -> h.createQuery(sql).bind("from", 2).mapTo(Integer.class)
                    .stream().flatMap(a -> h.createQuery(sql).bind("from", a).mapTo(Integer.class).list().stream()
                            .map(b -> a + "-" + b)).toList());
            assertThat(pairs).containsExactly("2-2", "2-3", "3-3");
            // when another connection commits a row after the reader's statement ran and went back to the cache
            writer.useHandle(h -> h.execute("INSERT INTO t VALUES (4)"));
            // then the reader's next run of it sees the commit (the statement at rest held no snapshot)
            List<Integer> later = reader.inTransaction(h -> h.createQuery(sql).bind("from", 3).mapTo(Integer.class)
                    .list());
            assertThat(later).containsExactly(3, 4);
        }
    }
}
