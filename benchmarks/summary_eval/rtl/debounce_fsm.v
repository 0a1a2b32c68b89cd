module debounce_fsm #(
    parameter integer HOLD = 16
) (
    input  wire clk,
    input  wire rst,
    input  wire btn,
    output wire pressed
);
    localparam [1:0] RELEASED = 2'b00, PRESS_WAIT = 2'b01, HELD = 2'b11, RELEASE_WAIT = 2'b10;

    reg [1:0] state;
    reg [4:0] count;

    always @(posedge clk) begin
        if (rst) begin
            state <= RELEASED;
            count <= 5'd0;
        end else begin
            case (state)
                RELEASED: begin
                    count <= 5'd0;
                    if (btn) state <= PRESS_WAIT;
                end
                PRESS_WAIT:
                    if (!btn) state <= RELEASED;
                    else if (count == HOLD - 1) begin state <= HELD; count <= 5'd0; end
                    else count <= count + 5'd1;
                HELD: begin
                    count <= 5'd0;
                    if (!btn) state <= RELEASE_WAIT;
                end
                default:
                    if (btn) state <= HELD;
                    else if (count == HOLD - 1) begin state <= RELEASED; count <= 5'd0; end
                    else count <= count + 5'd1;
            endcase
        end
    end

    assign pressed = state[1];
endmodule
