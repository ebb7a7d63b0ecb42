/// Every journey a profile can name, by name.
public enum JourneyCatalog {
    public static let all: [String: any Journey] = {
        var m: [String: any Journey] = [:]
        for j: any Journey in [DailyQuest(), KillAndResume(), OfflineUpload(), Expiry()] { m[j.name] = j }
        for j: any Journey in [FirstLaunch(), FreePractice(), PermissionDenied(), DeleteData(), ChangeLanguages()] { m[j.name] = j }
        return m
    }()

    /// The lifecycle cohorts of the population model (seeds/002): which state a user starts in.
    public static let cohorts: Set<String> = ["new", "returning", "trial", "subscriber", "at_risk", "expired", "reactivated"]
}
