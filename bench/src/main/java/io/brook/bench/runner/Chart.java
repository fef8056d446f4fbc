package io.brook.bench.runner;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/** One PNG: throughput (MB/s) of every throughput workload above end-to-end latency percentiles. */
final class Chart {
    private static final int WIDTH = 1200;
    private static final int ROW_HEIGHT = 22;
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
