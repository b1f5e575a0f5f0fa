// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Easel",
    products: [
        .library(name: "EaselModel", targets: ["EaselModel"]),
        .executable(name: "easel", targets: ["easel"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
    ],
    targets: [
        // The document, its CRDT ops and the z-order keys. Standard library only:
        // it must compile unchanged inside an iOS app.
        .target(name: "EaselModel"),
        .executableTarget(
            name: "easel",
            dependencies: [
                "EaselModel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "EaselModelTests",
            dependencies: [
                "EaselModel",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
