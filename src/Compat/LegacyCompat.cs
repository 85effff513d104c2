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
