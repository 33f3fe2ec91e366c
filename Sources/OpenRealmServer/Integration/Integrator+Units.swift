import OpenRealmSyncCore
import OpenRealmWire

/// How one changeset is integrated (``Integrator``): whether schema changes are allowed,
/// the changeset's stamp, and a partition-based session's partition.
package struct IntegrationSettings {
    var developmentMode: Bool
    var stamp: WriteStamp
    var partition: SubscriptionView.Partition?
}

/// What integrating a changeset did (``Integrator``).
package struct IntegratedInstructions {
    /// The instructions that took effect, as they took effect.
    var applied: [WireInstruction]
    /// The created objects whose partition field the server stamped.
    var stamped: [WireObjectRef]
}

extension ObjectWriting {
    /// The integration of a changeset on a working set of this unit: the one
    /// implementation of ``ObjectWriting/integrate(_:_:)`` (a requirement only so that
    /// each store's conformance runs it compiled for its own working set).
    package func integrate(_ instructions: [WireInstruction], _ settings: IntegrationSettings) throws -> IntegratedInstructions {
        var integrator = Integrator(objects: try workingSet(WorkingSetRequest(instructions)),
                                    developmentMode: settings.developmentMode, stamp: settings.stamp)
        integrator.partition = settings.partition
        let applied = try integrator.apply(instructions)
        return IntegratedInstructions(applied: applied, stamped: integrator.stamped)
    }
}
