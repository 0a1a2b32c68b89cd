// 16-bit shift register: left or arithmetic right, by 1 or 8.
module shift16_arith (
    input  wire        clk,
    input  wire        load,
    input  wire        ena,
    input  wire [1:0]  amount,
    input  wire [15:0] data,
    output reg  [15:0] q
);
    always @(posedge clk) begin
        if (load)
            q <= data;
        else if (ena) begin
            case (amount)
                2'b00: q <= {q[14:0], 1'b0};
                2'b01: q <= {q[7:0], 8'h00};
                2'b10: q <= {q[15], q[15:1]};
                2'b11: q <= {{8{q[15]}}, q[15:8]};
            endcase
        end
    end
endmodule
