import Foundation

extension WireInstruction {
    /// The object path the instruction acts on (nil for creates of top-level objects and
    /// schema instructions).
    public var objectPath: WireObjectPath? {
        switch self {
        case .eraseObject(let o), .set(let o, _, _), .addInteger(let o, _, _), .listInsert(let o, _, _, _),
             .listSet(let o, _, _, _), .listErase(let o, _, _), .listMove(let o, _, _, _), .clearCollection(let o, _),
             .setInsert(let o, _, _), .setErase(let o, _, _), .dictionarySet(let o, _, _, _), .dictionaryErase(let o, _, _),
             .createEmbeddedObject(let o, _, _, _):
            return o
        default:
            return nil
        }
    }
}
