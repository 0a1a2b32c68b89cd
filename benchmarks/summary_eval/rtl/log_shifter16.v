// Four-stage logarithmic shifter: left, logical right or arithmetic right.
module log_shifter16 (
    input  wire [15:0] data_in,
    input  wire [3:0]  shamt,
    input  wire        right,
    input  wire        arith,
    output wire [15:0] data_out
);
    wire        fill = right & arith & data_in[15];
    wire [15:0] s0, s1, s2, s3;

    assign s0 = shamt[0] ? (right ? {fill, data_in[15:1]}   : {data_in[14:0], 1'b0}) : data_in;
    assign s1 = shamt[1] ? (right ? {{2{fill}}, s0[15:2]}   : {s0[13:0], 2'b00})     : s0;
    assign s2 = shamt[2] ? (right ? {{4{fill}}, s1[15:4]}   : {s1[11:0], 4'h0})      : s1;
    assign s3 = shamt[3] ? (right ? {{8{fill}}, s2[15:8]}   : {s2[7:0], 8'h00})      : s2;

    assign data_out = s3;
endmodule
