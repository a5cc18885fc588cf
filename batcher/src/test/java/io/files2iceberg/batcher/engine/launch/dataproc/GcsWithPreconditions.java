package io.files2iceberg.batcher.engine.launch.dataproc;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Cloud Storage as {@link LocalStorageHelper} gives it, plus what that stand-in lacks and the warm
 * driver's folder relies on: object generations and the create preconditions {@code
 * doesNotExist()} and {@code generationMatch()}, refused with 412 as Cloud Storage refuses them; a
 * read pinned to a generation that is gone is a 404. One lock orders the conditional writes, as
 * Cloud Storage orders writes to one object. Every other call goes to the stand-in unchanged.
 */
final class GcsWithPreconditions {
  private GcsWithPreconditions() {}

  static Storage create() {
    Storage fake = LocalStorageHelper.customOptions(false).getService();
    Map<String, Long> generations = new ConcurrentHashMap<>();
    AtomicLong next = new AtomicLong(1000);
    Object lock = new Object();
    return (Storage) Proxy.newProxyInstance(Storage.class.getClassLoader(), new Class<?>[] {Storage.class},
        (proxy, method, args) -> {
          String name = method.getName();
          if (name.equals("create") && args.length == 3 && args[0] instanceof BlobInfo info
              && args[1] instanceof byte[] content) {
            Storage.BlobTargetOption[] options = (Storage.BlobTargetOption[]) args[2];
            synchronized (lock) {
              String key = key(info.getBlobId());
              Long current = generations.get(key);
              for (Storage.BlobTargetOption option : options) {
                if (option.equals(Storage.BlobTargetOption.doesNotExist()) && current != null) {
                  throw new StorageException(412, "Precondition Failed: " + key + " exists");
                }
                if (option.equals(Storage.BlobTargetOption.generationMatch())
                    && (current == null || !current.equals(info.getGeneration()))) {
                  throw new StorageException(412, "Precondition Failed: " + key + " is at generation " + current
                      + ", not " + info.getGeneration());
                }
              }
              BlobId plain = BlobId.of(info.getBucket(), info.getName());
              Blob created = fake.create(info.toBuilder().setBlobId(plain).build(), content);
              long generation = next.incrementAndGet();
              generations.put(key, generation);
              return created.toBuilder().setBlobId(BlobId.of(info.getBucket(), info.getName(), generation)).build();
            }
          }
          if (name.equals("get") && args[0] instanceof BlobId id) {
            synchronized (lock) {
              Blob blob = fake.get(BlobId.of(id.getBucket(), id.getName()));
              Long generation = generations.get(key(id));
              return blob == null ? null
                  : blob.toBuilder().setBlobId(BlobId.of(id.getBucket(), id.getName(), generation)).build();
            }
          }
          if (name.equals("readAllBytes") && args[0] instanceof BlobId id) {
            synchronized (lock) {
              Long generation = generations.get(key(id));
              if (id.getGeneration() != null && !id.getGeneration().equals(generation)) {
                throw new StorageException(404, "No such object: " + key(id) + "#" + id.getGeneration());
              }
              return fake.readAllBytes(BlobId.of(id.getBucket(), id.getName()));
            }
          }
          if (name.equals("delete") && args[0] instanceof BlobId id) {
            synchronized (lock) {
              generations.remove(key(id));
              return fake.delete(BlobId.of(id.getBucket(), id.getName()));
            }
          }
          return invoke(fake, method, args);
        });
  }

  private static String key(BlobId id) {
    return id.getBucket() + "/" + id.getName();
  }

  private static Object invoke(Storage fake, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(fake, args == null ? new Object[0] : Arrays.copyOf(args, args.length));
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
