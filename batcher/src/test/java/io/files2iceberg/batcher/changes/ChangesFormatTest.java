package io.files2iceberg.batcher.changes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** {@code changes}' lines for a person, from the main's result line as it writes it. */
class ChangesFormatTest {
  private static ChangesResult result(String body) {
    // The main writes its result on one line.
    return ChangesResult.lastIn("{\"" + ChangesResult.KEY + "\":" + body.replace("\n", "") + "}").orElseThrow();
  }

  @Test
  void eachSortOfChangeIsOneLineThenTheSummarySaysWhatWasLeftOut() {
    ChangesResult result = result("""
        {"table":"local.demo.t","start":"snapshot 1","currentSnapshotId":"3","other":2,"changes":[
        {"kind":"change","change":"commit","table":"local.demo.t","snapshotId":"2","committedAt":"2026-12-06T10:00:00Z",
         "parentSnapshotId":"1","operation":"overwrite","batchId":"b-1","partitions":["d1","d2","d3","d4","d5"],
         "partitionCount":7,"partitionsTruncated":true,"inserted":10,"updated":2,"deleted":0},
        {"kind":"change","change":"commit","table":"local.demo.t","snapshotId":"4","committedAt":"2026-12-06T10:30:00Z",
         "parentSnapshotId":"2","operation":"append","batchId":"b-0","partitions":null,"partitionCount":null,
         "partitionsTruncated":false,"inserted":null,"updated":null,"deleted":null},
        {"kind":"change","change":"drop-partition","table":"local.demo.t","snapshotId":"5","committedAt":"2026-12-06T11:00:00Z",
         "parentSnapshotId":"4","operation":"delete","changeId":"drop-1","partitions":["d1"],"partitionCount":1,
         "partitionsTruncated":false,"deleted":4},
        {"kind":"change","change":"rollback","table":"local.demo.t","snapshotId":"3","committedAt":"2026-12-06T12:00:00Z",
         "fromSnapshotId":"5","toSnapshotId":"3","undone":[
           {"snapshotId":"5","batchId":null,"changeId":"drop-1","partitions":["d1"],"partitionCount":1,"partitionsTruncated":false},
           {"snapshotId":"4","batchId":"b-2","changeId":null,"partitions":["d2"],"partitionCount":1,"partitionsTruncated":false}]}
        ]}""");

    assertThat(ChangesFormat.human("local.demo.t", "snapshot 1", result)).isEqualTo("""
        2026-12-06T10:00:00Z  commit  batch b-1  snapshot 2  7 partitions (d1, d2, d3, d4, d5, ... 2 more)  +10 ~2 -0
        2026-12-06T10:30:00Z  commit  batch b-0  snapshot 4  partitions unknown  +? ~? -?
        2026-12-06T11:00:00Z  drop-partition  change drop-1  snapshot 5  1 partition (d1)  -4
        2026-12-06T12:00:00Z  rollback  snapshot 5 -> 3  undid change drop-1 (1 partition (d1)), batch b-2 (1 partition (d2))
        local.demo.t: 4 change(s) after snapshot 1; current snapshot 3; 2 snapshot(s) not written by files2iceberg \
        (maintenance, other writers) or expired, left out
        """);
    assertThat(result.currentSnapshotId()).isEqualTo(Optional.of("3"));
  }

  @Test
  void jsonIsTheMainsChangesThenTheSummary() {
    ChangesResult result = result("""
        {"table":"local.demo.t","start":"snapshot 1","currentSnapshotId":null,"other":0,"changes":[]}""");

    assertThat(ChangesFormat.json("local.demo.t", "snapshot 1", result)).isEqualTo("{\"kind\":\"changes_summary\","
        + "\"table\":\"local.demo.t\",\"start\":\"snapshot 1\",\"changes\":0,\"other\":0,\"currentSnapshotId\":null}\n");
  }
}
