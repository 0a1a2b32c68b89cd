module onehot_encoder8 (
    input  wire [7:0] onehot,
    output wire [2:0] index
);
    // Each index bit is the OR of the inputs whose position has that bit set.
    assign index[0] = onehot[1] | onehot[3] | onehot[5] | onehot[7];
    assign index[1] = onehot[2] | onehot[3] | onehot[6] | onehot[7];
    assign index[2] = onehot[4] | onehot[5] | onehot[6] | onehot[7];
endmodule
