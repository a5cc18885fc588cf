package io.files2iceberg.batcher.metrics;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A scrape of a {@code /prometheus} endpoint over real HTTP, parsed: each sample line's series
 * ({@code name{label="value",...}} as written) to its value. Comment lines are skipped.
 */
public record PrometheusText(int status, String contentType, Map<String, Double> samples) {

  public static PrometheusText scrape(URI uri) throws IOException, InterruptedException {
    HttpResponse<String> response = HttpClient.newHttpClient()
        .send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString());
    return new PrometheusText(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
        response.statusCode() == 200 ? parse(response.body()) : Map.of());
  }

  /** A scrape's text, as if served with status 200. */
  public static PrometheusText parseOf(String text) {
    return new PrometheusText(200, "text/plain", parse(text));
  }

  public static Map<String, Double> parse(String text) {
    Map<String, Double> samples = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int space = line.lastIndexOf(' ');
      samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
    }
    return samples;
  }

  /** The value of {@code name} with exactly these labels (in the order the registry writes them: sorted). */
  public double value(String name, String... labelPairs) {
    StringBuilder series = new StringBuilder(name);
    if (labelPairs.length > 0) {
      series.append('{');
      for (int i = 0; i < labelPairs.length; i += 2) {
        series.append(i == 0 ? "" : ",").append(labelPairs[i]).append("=\"").append(labelPairs[i + 1]).append('"');
      }
      series.append('}');
    }
    Double value = samples.get(series.toString());
    if (value == null) {
      throw new AssertionError("No sample " + series + " in the scrape; its series: " + samples.keySet());
    }
    return value;
  }
}
