/**
 * The visual report: one self-contained HTML file per simulation run, drawn in the browser from the run's JSON
 * document (schema {@code allot.simulate/1} with its {@code runs}). The standard charts use uPlot, inlined from its
 * webjar; the per-GPU timeline is Allot's own canvas code.
 */
package dev.allot.report;
