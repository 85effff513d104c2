using DivCon.Schedulers.Multiprogram.Profiles;

namespace DivCon.Schedulers.Multiprogram.Profiling;

/// <summary>
/// A <see cref="ScalabilityProfileStore"/> kept in a JSON file that several processes may share: loading, checking
/// that it can be written before anything is measured, and merging new profiles into it under a lock.
/// </summary>
/// <remarks>
/// <para><b>Atomic replacement.</b> A write goes to a uniquely named temporary file beside the target, which is then
/// renamed over it: readers see the old or the new store, never half a file. A failed write removes its temporary
/// file.</para>
/// <para><b>Sharing.</b> <see cref="Merge"/> holds an exclusive lock on a sidecar file (<c>&lt;file&gt;.lock</c>, never
/// deleted: deleting it would let a second process lock a new inode while the first still holds the old one) while it
/// rereads the file, adds the new profiles and writes it back, so profiles another process stored since this one
/// loaded the file are kept. The lock is the runtime's exclusive file share (an advisory <c>flock</c> on Unix), so it
/// also excludes a second writer in the same process.</para>
/// </remarks>
public static class ScalabilityProfileFile
{
    /// <summary>How long <see cref="Merge"/> waits for another writer by default.</summary>
    public static readonly TimeSpan DefaultLockTimeout = TimeSpan.FromSeconds(30);

    private static readonly TimeSpan s_lockRetry = TimeSpan.FromMilliseconds(20);

    /// <summary>Loads a store; a missing file gives an empty store.</summary>
    /// <param name="path">The file.</param>
    /// <returns>The store.</returns>
    /// <exception cref="ArgumentException"><paramref name="path"/> is null or blank.</exception>
    /// <exception cref="InvalidDataException">The path is a directory, or the file is not a valid store; the message names it.</exception>
    /// <exception cref="IOException">The file cannot be read.</exception>
    public static ScalabilityProfileStore Load(string path)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        if (Directory.Exists(path))
        {
            throw new InvalidDataException($"Scalability profile store '{path}' is a directory, not a file.");
        }

        if (!File.Exists(path))
        {
            return new ScalabilityProfileStore();
        }

        using FileStream stream = File.OpenRead(path);
        return ScalabilityProfileStore.Read(stream, path);
    }

    /// <summary>Writes a store to a file, replacing it atomically (see the remarks); its directory is created when missing.
    /// Replaces whatever the file held: to keep other writers' profiles use <see cref="Merge"/>.</summary>
    /// <param name="store">The store.</param>
    /// <param name="path">The file.</param>
    /// <exception cref="ArgumentException"><paramref name="path"/> is null or blank.</exception>
    /// <exception cref="InvalidDataException">The path is a directory.</exception>
    /// <exception cref="IOException">The file cannot be written.</exception>
    public static void Save(ScalabilityProfileStore store, string path)
    {
        ArgumentNullException.ThrowIfNull(store);
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        string full = Path.GetFullPath(path);
        if (Directory.Exists(full))
        {
            throw new InvalidDataException($"Scalability profile store '{path}' is a directory, not a file.");
        }

        Directory.CreateDirectory(Path.GetDirectoryName(full)!);
        string temporary = $"{full}.{Environment.ProcessId}.{Guid.NewGuid():N}.tmp";
        try
        {
            using (FileStream stream = new(temporary, FileMode.CreateNew, FileAccess.Write, FileShare.None))
            {
                store.Write(stream);
            }

            File.Move(temporary, full, overwrite: true);
        }
        finally
        {
            // After a successful move the temporary name no longer exists; after a failure it must not stay behind.
            File.Delete(temporary);
        }
    }

    /// <summary>
    /// Adds <paramref name="profiles"/> to the store in the file (replacing those with the same program and size) and
    /// writes it back, holding the file's lock from the read to the write so that concurrent writers' profiles are kept.
    /// </summary>
    /// <param name="path">The file (created when missing).</param>
    /// <param name="profiles">The new profiles.</param>
    /// <param name="lockTimeout">How long to wait for another writer; <see cref="DefaultLockTimeout"/> when null.</param>
    /// <returns>The store as written.</returns>
    /// <exception cref="InvalidDataException">The file is not a valid store (it is left as it is).</exception>
    /// <exception cref="IOException">The file cannot be written, or another writer held the lock past the timeout.</exception>
    public static ScalabilityProfileStore Merge(string path, IEnumerable<ScalabilityProfile> profiles, TimeSpan? lockTimeout = null) =>
        MergeReportingWait(path, profiles, lockTimeout, onLockBusy: null);

    // onLockBusy runs once, when the lock is first found held: a test waits on it to know the writer is waiting.
    internal static ScalabilityProfileStore MergeReportingWait(string path, IEnumerable<ScalabilityProfile> profiles, TimeSpan? lockTimeout, Action? onLockBusy)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        ArgumentNullException.ThrowIfNull(profiles);
        ScalabilityProfile[] added = profiles.ToArray();
        using FileStream fileLock = AcquireLock(path, lockTimeout ?? DefaultLockTimeout, onLockBusy);
        ScalabilityProfileStore store = Load(path);
        foreach (ScalabilityProfile profile in added)
        {
            store.Set(profile);
        }

        Save(store, path);
        return store;
    }

    /// <summary>
    /// Checks, before anything is measured, that <see cref="Merge"/> will be able to write the file: the path is not a
    /// directory, an existing file is a valid store, and its directory can be created and written (a probe file is
    /// created and deleted there; the store is replaced by a rename, which needs only the directory to be writable).
    /// Changes nothing but creating the directory.
    /// </summary>
    /// <param name="path">The file.</param>
    /// <exception cref="InvalidDataException">The path is a directory, or the existing file is not a valid store.</exception>
    /// <exception cref="IOException">The directory cannot be created or written.</exception>
    public static void EnsureWritable(string path)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        string full = Path.GetFullPath(path);
        _ = Load(full); // a directory or a corrupt store is reported now, not after the measurements
        try
        {
            Directory.CreateDirectory(Path.GetDirectoryName(full)!);
            string probe = $"{full}.{Environment.ProcessId}.{Guid.NewGuid():N}.probe";
            using (new FileStream(probe, FileMode.CreateNew, FileAccess.Write, FileShare.None, 1, FileOptions.DeleteOnClose))
            {
            }
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new IOException($"Scalability profile store '{path}' cannot be written: {e.Message}", e);
        }
    }

    /// <summary>The lock file of a store file.</summary>
    /// <param name="path">The store file.</param>
    /// <returns><c>&lt;path&gt;.lock</c>.</returns>
    public static string LockPath(string path)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        return Path.GetFullPath(path) + ".lock";
    }

    /// <summary>Takes the store's exclusive lock, waiting up to <paramref name="timeout"/> for another holder.</summary>
    /// <param name="path">The store file.</param>
    /// <param name="timeout">The longest wait.</param>
    /// <returns>The open lock file; disposing it releases the lock.</returns>
    /// <exception cref="IOException">The lock was not free within the timeout.</exception>
    public static FileStream AcquireLock(string path, TimeSpan timeout) => AcquireLock(path, timeout, onBusy: null);

    private static FileStream AcquireLock(string path, TimeSpan timeout, Action? onBusy)
    {
        string lockPath = LockPath(path);
        Directory.CreateDirectory(Path.GetDirectoryName(lockPath)!);
        long deadline = Environment.TickCount64 + (long)timeout.TotalMilliseconds;
        while (true)
        {
            try
            {
                // FileShare.None: an exclusive advisory lock on Unix, a sharing violation on Windows while another holds it.
                return new FileStream(lockPath, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None);
            }
            catch (IOException) when (Environment.TickCount64 < deadline)
            {
                onBusy?.Invoke();
                onBusy = null;
                Thread.Sleep(s_lockRetry);
            }
            catch (IOException e)
            {
                throw new IOException($"Scalability profile store '{path}' is locked by another writer ({lockPath}) for more than {timeout.TotalSeconds:0.#} s.", e);
            }
        }
    }
}
