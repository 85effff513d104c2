using DivCon.Schedulers.Multiprogram.Model;

namespace DivCon.Schedulers.Multiprogram.Policies;

/// <summary>The allocation <see cref="HillClimbingPolicy"/> starts climbing from.</summary>
public enum HillClimbingStart
{
    /// <summary>The <see cref="ProportionalPolicy"/> allocation (by whole-machine speedup).</summary>
    Proportional,

    /// <summary>The <see cref="EqualSharePolicy"/> allocation.</summary>
    Equal,
}
