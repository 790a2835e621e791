package dev.allot.sim.report;

import com.fasterxml.jackson.dataformat.csv.CsvGenerator;
import com.fasterxml.jackson.dataformat.csv.CsvMapper;

/**
 * How Allot writes CSV: RFC 4180, a cell quoted only when it needs it (a comma, a quote, a line break, or white space
 * at either end). Jackson's default quoted every text cell longer than 24 characters without looking at it, so a
 * sweep's header had {@code "paid:lab/foundation/pretrain"} quoted and {@code paid:lab/foundation/data} not.
 */
public final class CsvOutput {
    private CsvOutput() {
    }

    /** A mapper for writing CSV files: every cell checked, quoted only when needed. */
    public static CsvMapper mapper() {
        return CsvMapper.builder().enable(CsvGenerator.Feature.STRICT_CHECK_FOR_QUOTING).build();
    }
}
