/// The name of a journey a profile can name, spelled once; parsing it is the validation, and
/// every name has its journey (`journey`), so no lookup can miss.
public enum JourneyName: String, CaseIterable, Sendable, Comparable, CustomStringConvertible {
    case dailyQuest, killAndResume, offlineUpload, expiry
    case firstLaunch, freePractice, permissionDenied, deleteData, changeLanguages

    /// A journey name as written in a profile; an unknown one is an error listing the known ones.
    public static func parse(_ text: String) throws(UnknownJourney) -> JourneyName {
        guard let name = JourneyName(rawValue: text) else { throw UnknownJourney(name: text) }
        return name
    }

    /// The journey this name stands for.
    public var journey: any Journey {
        switch self {
        case .dailyQuest: DailyQuest()
        case .killAndResume: KillAndResume()
        case .offlineUpload: OfflineUpload()
        case .expiry: Expiry()
        case .firstLaunch: FirstLaunch()
        case .freePractice: FreePractice()
        case .permissionDenied: PermissionDenied()
        case .deleteData: DeleteData()
        case .changeLanguages: ChangeLanguages()
        }
    }

    public var description: String { rawValue }
    /// By name, as the weighted draws sort them (a seed gives the same draw in every run).
    public static func < (a: JourneyName, b: JourneyName) -> Bool { a.rawValue < b.rawValue }
}

/// A journey name no journey has.
public struct UnknownJourney: Error, CustomStringConvertible, Equatable {
    public var name: String
    public var description: String {
        "no journey '\(name)' (known: \(JourneyName.allCases.map(\.rawValue).sorted().joined(separator: ", ")))"
    }
}

/// Every journey a profile can name, by name.
public enum JourneyCatalog {
    public static let all: [String: any Journey] = Dictionary(uniqueKeysWithValues: JourneyName.allCases.map { ($0.rawValue, $0.journey) })

    /// The lifecycle cohorts of the population model (seeds/002): which state a user starts in.
    public static let cohorts: Set<String> = ["new", "returning", "trial", "subscriber", "at_risk", "expired", "reactivated"]
}
