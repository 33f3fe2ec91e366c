import Foundation

#if !canImport(UIKit) && !canImport(AppKit)
/// The section-and-row view of an `IndexPath` that UIKit and AppKit add on Apple
/// platforms, for `SectionedResults` on Linux: code written for the Realm Swift SDK
/// (`IndexPath(item: 0, section: 1)`, `change.section`) builds unchanged.
extension IndexPath {
    /// An index path of two elements: `section`, then `item`.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// An index path of two elements: `section`, then `row` (the name table views use).
    public init(row: Int, section: Int) {
        self.init(indexes: [section, row])
    }

    /// The first element: the section.
    public var section: Int {
        get { self[0] }
        set { self[0] = newValue }
    }

    /// The second element: the item in the section.
    public var item: Int {
        get { self[1] }
        set { self[1] = newValue }
    }

    /// The second element, as table views name it.
    public var row: Int {
        get { self[1] }
        set { self[1] = newValue }
    }
}
#endif
