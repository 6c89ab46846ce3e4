final class ChatSession {
    let advertiser = ChatAdvertiser()

    func start() {
        advertiser.advertise(service: ChatService.service)
    }
}
