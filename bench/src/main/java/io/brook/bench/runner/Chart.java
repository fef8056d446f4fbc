package io.brook.bench.runner;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.text.DecimalFormat;
import java.nio.file.Path;
import java.text.DecimalFormatSymbols;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/** One PNG: throughput (MB/s) of every throughput workload above end-to-end latency percentiles. */
final class Chart {
    private static final int WIDTH = 1200;
    private static final int ROW_HEIGHT = 22;
    /** Where latency bars start: below any end-to-end latency a network round trip allows. */
    private static final double LOG_BASE_MS = 0.1;
    private static final Color[] COLOURS = {
        new Color(0x1f77b4), new Color(0x2ca02c), new Color(0xd62728), new Color(0x9467bd)};

    private Chart() {
    }

    static void write(Report report, Path file) throws IOException {
        DefaultCategoryDataset throughput = new DefaultCategoryDataset();
        Map<String, Map<String, Double>> mbps = report.series(Metric.MB_PER_S, w -> !w.startsWith("latency"));
        mbps.forEach((workload, perBroker) -> perBroker.forEach((broker, v) -> throughput.addValue(v, broker, workload)));

        DefaultCategoryDataset latency = new DefaultCategoryDataset();
        for (Metric m : List.of(Metric.P50_MS, Metric.P99_MS, Metric.P999_MS)) {
            report.series(m, w -> w.startsWith("latency")).forEach((workload, perBroker) ->
                    perBroker.forEach((broker, v) -> latency.addValue(v, broker, workload + " " + m.label)));
        }
        JFreeChart top = bars("Throughput (MB/s of record values; higher is better)", "MB/s", throughput);
        JFreeChart bottom = bars("End-to-end latency at fixed rates (ms, from intended send time; lower is better)",
                "ms", latency);
        logScale(bottom, "ms (log scale)");
        int topHeight = height(throughput);
        int bottomHeight = height(latency);
        BufferedImage image = new BufferedImage(WIDTH, topHeight + bottomHeight, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, topHeight + bottomHeight);
            top.draw(g, new Rectangle2D.Double(0, 0, WIDTH, topHeight));
            bottom.draw(g, new Rectangle2D.Double(0, topHeight, WIDTH, bottomHeight));
        } finally {
            g.dispose();
        }
        ImageIO.write(image, "png", file.toFile());
    }

    private static int height(DefaultCategoryDataset data) {
        int bars = Math.max(1, data.getColumnCount() * Math.max(1, data.getRowCount()));
        return 140 + bars * ROW_HEIGHT;
    }

    /**
     * Percentiles span three orders of magnitude (p50 under a millisecond, p99.9 in hundreds), so
     * the latency axis is logarithmic; bars grow from {@link #LOG_BASE_MS} instead of from zero.
     */
    private static void logScale(JFreeChart chart, String label) {
        CategoryPlot plot = chart.getCategoryPlot();
        LogAxis axis = new LogAxis(label);
        axis.setSmallestValue(LOG_BASE_MS);
        axis.setBase(10);
        axis.setTickUnit(new NumberTickUnit(1.0)); // one tick per power of ten
        axis.setMinorTickMarksVisible(true);
        axis.setNumberFormatOverride(new DecimalFormat("#,##0.##", DecimalFormatSymbols.getInstance(Locale.ROOT)));
        plot.setRangeAxis(axis);
        BarRenderer renderer = (BarRenderer) plot.getRenderer();
        renderer.setBase(LOG_BASE_MS);
        renderer.setIncludeBaseInRange(true);
    }

    private static JFreeChart bars(String title, String axis, DefaultCategoryDataset data) {
        JFreeChart chart = ChartFactory.createBarChart(title, null, axis, data, PlotOrientation.HORIZONTAL,
                true, false, false);
        chart.setBackgroundPaint(Color.WHITE);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        BarRenderer renderer = (BarRenderer) plot.getRenderer();
        renderer.setBarPainter(new StandardBarPainter());
        renderer.setShadowVisible(false);
        renderer.setItemMargin(0.05);
        for (int i = 0; i < data.getRowCount(); i++) {
            renderer.setSeriesPaint(i, COLOURS[i % COLOURS.length]);
        }
        return chart;
    }
}
