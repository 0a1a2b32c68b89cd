module rotator8 (
    input  wire       clk,
    input  wire       load,
    input  wire [1:0] ena,
    input  wire [7:0] data,
    output reg  [7:0] q
);
    always @(posedge clk) begin
        if (load)
            q <= data;
        else begin
            case (ena)
                2'b01:   q <= {q[0], q[7:1]};
                2'b10:   q <= {q[6:0], q[7]};
                default: q <= q;
            endcase
        end
    end
endmodule
