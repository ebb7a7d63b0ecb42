import FleetClient

/// Flow 5: the microphone permission, asked on the first tap on the mic, never before.
extension VirtualUser {
    /// First tap on the mic: the purpose sheet, then the system prompt (`grant` is the user's
    /// answer). Later taps find the answer the OS remembers. Returns whether recording may start.
    @inline(never)  // async steps are not inlined: see VirtualUser (frames)
    public func tapMicrophone(grant: Bool) async throws(JourneyStop) -> Bool {
        if device.micPermission == .notAsked {
            reach("mic_purpose")
            try await think("mic_purpose")
            device.micPermission = grant ? .granted : .denied
        }
        return device.micPermission == .granted
    }

    /// `record--permission-denied`: no attempt is created. The user opens Settings (and may
    /// grant there) or goes back to the article. Returns true when the user comes back granted;
    /// throws `abandoned(mic_denied)` when the user leaves the record screen.
    @inline(never)
    public func permissionDeniedScreen() async throws(JourneyStop) -> Bool {
        reach("permission_denied")
        var visits = 0
        while visits < 2 {
            try await think("permission_denied")
            guard decide("open_settings", default: 0.6) else { break }
            visits += 1
            reach("settings_round_trip")
            try await think("settings")
            if decide("grant_in_settings", default: 0.7) {
                device.micPermission = .granted
                reach("permission_granted")
                return true
            }
            // Still denied when the app becomes active again: the same screen.
            reach("permission_denied")
        }
        throw .abandoned(step: step, reason: "mic_denied")
    }

    /// Records round `round` once the microphone is usable, asking for it the first time.
    /// `grantDefault` is the chance that the system prompt is answered "Allow".
    @inline(never)
    func recordWithPermission(session: SessionInfo, round: Int, grantDefault: Double) async throws(JourneyStop) -> AttemptInfo {
        try await microphoneReady(grantDefault: grantDefault)
        return try await recordRoundRecovering(session: session, round: round)
    }

    /// The tap on the mic before a take: returns once recording may start (granted now, earlier,
    /// or in Settings); throws `abandoned(mic_denied)` when the user leaves instead.
    @inline(never)
    func microphoneReady(grantDefault: Double) async throws(JourneyStop) {
        let granted = try await tapMicrophone(grant: decide("mic_granted", default: grantDefault))
        if !granted { _ = try await permissionDeniedScreen() }
    }
}
