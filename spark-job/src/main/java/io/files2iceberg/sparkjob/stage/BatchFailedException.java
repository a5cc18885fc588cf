package io.files2iceberg.sparkjob.stage;

/**
 * A stage's verdict that the batch cannot be loaded as it is: bad input or a change the table
 * cannot take. The message names what is at fault (the file, the column, both types); the job
 * adds the table and the batch id. Retrying the same batch fails the same way.
 */
public class BatchFailedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public BatchFailedException(String message) {
    super(message);
  }

  public BatchFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}
