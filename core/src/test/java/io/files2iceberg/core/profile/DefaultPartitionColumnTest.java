package io.files2iceberg.core.profile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

class DefaultPartitionColumnTest {

  private static String columnFor(String pattern) {
    assertThat(ProfileRules.oneCaptureGroup(pattern)).as("valid pattern %s", pattern).isEmpty();
    return DefaultPartitionColumn.of(Optional.of(pattern));
  }

  @Test
  void namedGroupNamesTheColumn() {
    assertThat(columnFor("raw/orders/(?<day>[0-9]{8})/.+")).isEqualTo("day");
    assertThat(columnFor(".+/dt=(?<eventDate>[^/]+)/.+")).isEqualTo("eventDate");
  }

  @Test
  void identifierWithEqualsJustBeforeTheGroupNamesTheColumn() {
    assertThat(columnFor(".+/dt=(\\d{4}-\\d{2}-\\d{2})/.+")).isEqualTo("dt");
    assertThat(columnFor("gs://b/raw/event_date=([^/]+)/.+")).isEqualTo("event_date");
  }

  @Test
  void groupWithoutANameOrAnIdentifierBeforeItGivesPartition() {
    assertThat(columnFor(".+/([0-9]{8})/.+")).isEqualTo("partition");
    assertThat(columnFor(".+/dt-([0-9]{8})/.+")).isEqualTo("partition");
    assertThat(columnFor(".+/\\d=([0-9]{8})/.+")).isEqualTo("partition");
  }

  @Test
  void noPatternGivesPartition() {
    assertThat(DefaultPartitionColumn.of(Optional.empty())).isEqualTo("partition");
  }

  @Test
  void parenthesesThatAreNotTheCaptureGroupAreSkipped() {
    assertThat(columnFor("(?:raw|staged)/dt=(.+)/.+")).isEqualTo("dt");
    assertThat(columnFor("(?i)(?<=/)dt=(.+)/.+")).isEqualTo("dt");
    assertThat(columnFor("\\(legacy\\)/dt=(.+)/.+")).isEqualTo("dt");
    assertThat(columnFor("[(]x[)]/dt=(.+)/.+")).isEqualTo("dt");
    assertThat(columnFor("[]()]/dt=(.+)/.+")).isEqualTo("dt");
    assertThat(columnFor("\\Q(a)\\E/dt=(.+)/.+")).isEqualTo("dt");
  }

  @Test
  void escapeLetterBeforeTheIdentifierIsNotPartOfIt() {
    assertThat(columnFor(".+\\bdt=(.+)")).isEqualTo("dt");
    assertThat(columnFor(".+\\\\dt=(.+)")).isEqualTo("dt");
  }
}
