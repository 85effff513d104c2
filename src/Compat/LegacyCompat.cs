// Compiled only into the netstandard2.0 and .NET Framework builds (see Directory.Build.targets): the few members
// that DivCon uses and that neither the Polyfill package nor the BCL back-port packages supply there. Embedded, so
// that an assembly granted InternalsVisibleTo (the tests) does not see two copies.
#if !NETCOREAPP
using System.ComponentModel;
using System.Numerics;
using System.Runtime.InteropServices;

namespace Polyfills;

[Microsoft.CodeAnalysis.Embedded]
internal static class DivConLegacyCompat
{
    extension(Task task)
    {
        /// <summary>As on .NET Core: ran to completion (neither faulted nor cancelled).</summary>
        public bool IsCompletedSuccessfully => task.Status == TaskStatus.RanToCompletion;
    }

    extension(double)
    {
        /// <summary>Neither infinite nor NaN.</summary>
        public static bool IsFinite(double value) => !double.IsNaN(value) && !double.IsInfinity(value);
    }

    extension(int)
    {
        /// <summary>floor(log2(value)) for a positive value; 0 for 0.</summary>
        public static int Log2(int value)
        {
            int log = 0;
            while ((value >>= 1) > 0)
            {
                log++;
            }

            return log;
        }
    }

    extension(BitOperations)
    {
        /// <summary>Rotates <paramref name="value"/> left by <paramref name="offset"/> bits (modulo 64).</summary>
        public static ulong RotateLeft(ulong value, int offset) => (value << offset) | (value >> (64 - offset));

        /// <summary>The number of set bits.</summary>
        public static int PopCount(uint value)
        {
            value -= (value >> 1) & 0x55555555u;
            value = (value & 0x33333333u) + ((value >> 2) & 0x33333333u);
            return (int)((((value + (value >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24);
        }
    }

    extension(Array)
    {
        /// <summary>The largest number of elements a single-dimensional array may hold on .NET.</summary>
        public static int MaxLength => 0x7FFFFFC7;

        /// <summary>Sets every element of <paramref name="array"/> to <paramref name="value"/>.</summary>
        public static void Fill<T>(T[] array, T value)
        {
            ArgumentNullException.ThrowIfNull(array);
            array.AsSpan().Fill(value);
        }
    }

    extension(TimeSpan)
    {
        /// <summary>The ratio of two intervals.</summary>
        public static double operator /(TimeSpan dividend, TimeSpan divisor) => (double)dividend.Ticks / divisor.Ticks;
    }

    extension(string)
    {
        /// <summary>
        /// Formats an interpolated string with <paramref name="provider"/> (on .NET an interpolated-string handler does
        /// this without the intermediate <see cref="FormattableString"/>).
        /// </summary>
        public static string Create(IFormatProvider? provider, FormattableString text)
        {
            ArgumentNullException.ThrowIfNull(text);
            return text.ToString(provider);
        }
    }

    extension(TimeSpan value)
    {
        /// <summary>The interval in whole and fractional microseconds (a tick is 0.1 us).</summary>
        public double TotalMicroseconds => value.Ticks / 10.0;
    }

    extension(Math)
    {
        /// <summary>
        /// <paramref name="x"/> * 2^<paramref name="n"/>. Exact for the exponents DivCon uses (|n| &lt;= 60): a power
        /// of two that small is exact as a double, so the product rounds only where ScaleB's would (over- or
        /// underflow).
        /// </summary>
        public static double ScaleB(double x, int n) => x * Math.Pow(2, n);
    }

    extension(Thread)
    {
        /// <summary>-1: these targets have no cheap portable query for the current CPU (callers treat -1 as "unknown").</summary>
        public static int GetCurrentProcessorId() => -1;
    }

    extension(Environment)
    {
        /// <summary>Milliseconds from a monotonic clock (the stopwatch), as a 64-bit count that does not wrap.</summary>
        public static long TickCount64 => (long)(System.Diagnostics.Stopwatch.GetTimestamp() * (1000.0 / System.Diagnostics.Stopwatch.Frequency));
    }

    extension(ThreadPool)
    {
        /// <summary>Queues <paramref name="callBack"/> with <paramref name="state"/>; <paramref name="preferLocal"/> is a hint these targets ignore.</summary>
        public static bool UnsafeQueueUserWorkItem<TState>(Action<TState> callBack, TState state, bool preferLocal)
        {
            ArgumentNullException.ThrowIfNull(callBack);
            _ = preferLocal;
            return ThreadPool.UnsafeQueueUserWorkItem(s => callBack((TState)s!), state);
        }
    }

    extension(DateTimeOffset)
    {
        /// <summary>1970-01-01T00:00:00Z.</summary>
        public static DateTimeOffset UnixEpoch => new(1970, 1, 1, 0, 0, 0, TimeSpan.Zero);
    }

    extension(Interlocked)
    {
        /// <summary>
        /// A plain full fence here: netstandard2.0 has no process-wide barrier, so the code that pairs with this call
        /// (the scheduler's hot paths) issues its own full fence on these targets (see WorkQueueSet).
        /// </summary>
        public static void MemoryBarrierProcessWide() => Interlocked.MemoryBarrier();
    }

    extension(Marshal)
    {
        /// <summary>The error of the last P/Invoke declared with <c>SetLastError = true</c> (errno on Linux).</summary>
        public static int GetLastPInvokeError() => Marshal.GetLastWin32Error();

        /// <summary>The system's message for an error code (strerror on Linux, FormatMessage on Windows).</summary>
        public static string GetPInvokeErrorMessage(int error) => new Win32Exception(error).Message;
    }
}
#endif
