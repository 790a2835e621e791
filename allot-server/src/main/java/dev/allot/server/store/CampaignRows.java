package dev.allot.server.store;

import dev.allot.core.campaign.ShardBrakes;
import dev.allot.core.model.Priority;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/** Rows of the campaign tables as records, for {@link Campaigns} (as {@link Rows} is for the other parts). */
final class CampaignRows {
    private CampaignRows() {
    }

    static String prefixed(String columns, String table) {
        return java.util.Arrays.stream(columns.split(",")).map(c -> table + "." + c.trim())
                .collect(java.util.stream.Collectors.joining(", "));
    }

    static Campaign campaign(ResultSet rs) throws SQLException {
        ShardBrakes brakes = new ShardBrakes(nullableDouble(rs, "shard_gpu_hours"), nullableInt(rs, "shard_requeues"),
                nullableDouble(rs, "campaign_gpu_hours"), nullableDouble(rs, "campaign_cost"),
                nullableDouble(rs, "price_per_gpu_hour"));
        return new Campaign(rs.getString("name"), rs.getString("owner"), rs.getString("allocation_path"),
                Rows.fromJson(rs.getString("command"), new com.fasterxml.jackson.core.type.TypeReference<List<String>>() {
                }),
                Rows.fromJson(rs.getString("environment"),
                        new com.fasterxml.jackson.core.type.TypeReference<java.util.TreeMap<String, String>>() {
                        }),
                rs.getInt("gpus"), rs.getLong("min_runtime_seconds"), nullableInt(rs, "protected_shards"),
                nullableInt(rs, "protected_gpus"), nullableDouble(rs, "seconds_per_unit"),
                Priority.parse(rs.getString("priority")), brakes, rs.getInt("failure_retries"),
                Campaign.State.parse(rs.getString("state")),
                rs.getLong("created_at_ms"));
    }

    static CampaignShard shard(ResultSet rs) throws SQLException {
        String heldBy = rs.getString("held_by");
        return new CampaignShard(rs.getString("campaign_name"), rs.getInt("shard_index"), rs.getString("family"),
                rs.getLong("units_total"), rs.getLong("units_done"), rs.getLong("measured_ms"),
                rs.getString("measured_attempt"), Rows.nullableLong(rs, "measured_until_ms"),
                rs.getString("workload_id"), heldBy == null ? null : CampaignShard.HeldBy.parse(heldBy),
                rs.getString("held_reason"), rs.getString("promotion_detail"), Rows.nullableLong(rs, "done_at_ms"));
    }

    private static Double nullableDouble(ResultSet rs, String column) throws SQLException {
        double v = rs.getDouble(column);
        return rs.wasNull() ? null : v;
    }

    private static Integer nullableInt(ResultSet rs, String column) throws SQLException {
        int v = rs.getInt(column);
        return rs.wasNull() ? null : v;
    }
}
