using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>
/// What <see cref="HillClimbingPolicy"/> optimises. Both use the predicted normalised progress of program i on
/// c_i cores, NP_i = speedup_i(c_i) / speedup_i(n): the fraction of its stand-alone whole-machine speed it keeps
/// (interference between programs is ignored).
/// </summary>
public enum HillClimbingObjective
{
    /// <summary>
    /// Minimise the average normalised turnaround time, ANTT = mean of 1 / NP_i (Sasaki et al.'s choice). Favours
    /// fairness: starving any program is very expensive.
    /// </summary>
    MinimizeAntt,

    /// <summary>Maximise the system throughput, STP = sum of NP_i. Favours the programs that scale best.</summary>
    MaximizeStp,
}
