package data_test

import (
	"fmt"
	"log"

	"github.com/greedyl2o/greedyl2o/data"
)

func ExampleOpen() {
	train, test, err := data.Open("synthetic", 8, 2, 32, 32, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(train), "train and", len(test), "test images")
	fmt.Printf("each %dx%d\n", train[0].H, train[0].W)
	fmt.Println("valid:", train[0].Validate() == nil)
	// Output:
	// 8 train and 2 test images
	// each 32x32
	// valid: true
}
